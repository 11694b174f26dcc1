// Starts libFuzzer over `fuzzObjectStorage` (see FuzzObjectStorage.swift).

import FuzzSupport

Fuzz.main(fuzzObjectStorage)
