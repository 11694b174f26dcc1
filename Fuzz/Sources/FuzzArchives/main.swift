// Starts libFuzzer over `fuzzArchives` (see FuzzArchives.swift).

import FuzzSupport

Fuzz.main(fuzzArchives)
