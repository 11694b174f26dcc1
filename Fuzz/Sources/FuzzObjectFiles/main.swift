// Starts libFuzzer over `fuzzObjectFiles` (see FuzzObjectFiles.swift).

import FuzzSupport

Fuzz.main(fuzzObjectFiles)
