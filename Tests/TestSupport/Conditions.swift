// What a test needs from the machine beyond the toolchain, as Swift Testing traits with one
// reason each: a test marked `.needsCorpus` is skipped, and reported as skipped with that reason,
// where ../shared/corpus/real is absent. Each condition is written once here, so every target
// checks it the same way and says the same thing when it is not met.

import Foundation
import Testing

extension Trait where Self == ConditionTrait {
    /// The corpus of real reports and dSYMs at ../shared/corpus/real.
    public static var needsCorpus: Self {
        .enabled(if: Repository.corpusPresent, Comment(rawValue: Repository.corpusAbsent))
    }

    /// The Samples builds that Samples/generate.sh makes (Samples/build/images.tsv).
    public static var needsSamples: Self {
        .enabled(if: Repository.samplesBuilt, Comment(rawValue: Repository.samplesAbsent))
    }

    /// moto's S3 server, which `make test` installs into the test venv.
    public static var needsMoto: Self {
        .enabled(if: MotoServer.available, "moto's server is not installed (pip install 'moto[server]')")
    }

    /// llvm-symbolizer-14, the referee for address lookups.
    public static var needsReferee: Self {
        .enabled(if: LLVMSymbolizer.available, "llvm-symbolizer-14 is not installed")
    }

    /// The `symbolicate` executable of the same build, beside the test bundle.
    public static var needsExecutable: Self {
        .enabled(if: Repository.executable != nil, "the symbolicate executable was not built beside the tests")
    }

    /// sentry-cli, the client of the chunked upload protocol, which `make test` installs into the test venv.
    public static var needsSentryCLI: Self {
        .enabled(if: SentryCLI.path != nil, "sentry-cli is not installed (pip install sentry-cli)")
    }

    /// Debian's protoc (protobuf-compiler), which makes and reads back PLCrashReporter fixtures.
    public static var needsProtoc: Self {
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/protoc"),
            "protoc is not installed (scripts/install-deps.sh installs protobuf-compiler)")
    }
}
