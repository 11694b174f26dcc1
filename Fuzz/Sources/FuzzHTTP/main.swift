// Starts libFuzzer over `fuzzHTTP` (see FuzzHTTP.swift).

import FuzzSupport

Fuzz.main(fuzzHTTP)
