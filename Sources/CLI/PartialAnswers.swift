// Failed lookups as the CLI says them. A frame whose image's symbols are (or may be) in the
// store but could not be read now (the bucket failed to answer, a build file is damaged) is
// `failed`, never missing: the report is still written, but the command exits 1 naming the
// cause, so a script retries instead of keeping an unsymbolicated report, unless the caller
// asked for what could be done (`--partial`).

import SymbolicateModel
import Symbolication

enum PartialAnswers {
    static let partial = FlagOption(
        "--partial",
        help: "Exit 0 even when symbols that are (or may be) in the store could not be read now (an unreachable"
            + " bucket, a damaged build file): those frames stay `failed`. Without it the command exits 1.")

    /// The lines to print and exit 1 with when `outcome` has failed frames and partial answers
    /// were not asked for; nil when the outcome stands.
    static func failure(_ outcome: SymbolicationOutcome, allowed: Bool) -> String? {
        guard !allowed, outcome.failedFrames > 0 else { return nil }
        var lines = [
            "error: \(count: outcome.failedFrames, "frame") could not be symbolicated because their symbols could not be"
                + " read; retry when the store answers, or pass --partial to accept the answer as it is:"
        ]
        let failures = outcome.failures
        for failure in failures.prefix(3) { lines.append("  \(failure.description)") }
        if failures.count > 3 { lines.append("  ... and \(count: failures.count - 3, "more image") (listed above)") }
        return lines.joined(separator: "\n")
    }
}
