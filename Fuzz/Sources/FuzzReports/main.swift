// Starts libFuzzer over `fuzzReports` (see FuzzReports.swift).

import FuzzSupport

Fuzz.main(fuzzReports)
