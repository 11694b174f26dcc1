// Failed lookups over HTTP. A report whose frames are `failed` (symbols the store has or may
// have could not be read now: the bucket did not answer, timed out, failed on its side, or a
// build file is damaged) is not a success with some images missing: the answer is 503 with
// Retry-After, naming the causes, so that clients and load balancers retry, unless the caller
// asked for what could be done (`?partial=1`), which answers as usual with those frames
// `failed`. A report that is only missing symbols is answered as before.

import SymbolicateModel
import Symbolication

enum FailedLookups {
    /// True when the request accepts partial answers: `partial=1` (or `true`, `yes`).
    static func partialAllowed(_ request: HTTPRequest) -> Bool {
        guard let value = request.query["partial"]?.lowercased() else { return false }
        return ["1", "true", "yes"].contains(value)
    }

    /// Throws the 503 for an outcome with failed frames, unless the request accepts partial answers.
    static func check(_ outcome: SymbolicationOutcome, _ request: HTTPRequest) throws {
        guard outcome.failedFrames > 0, !partialAllowed(request) else { return }
        throw refusal(outcome)
    }

    /// `503 symbols_unavailable`: how many frames failed and why (each image's cause once).
    static func refusal(_ outcome: SymbolicationOutcome) -> HTTPError {
        var causes: [String] = []
        for failure in outcome.failures where !causes.contains(failure.description) {
            causes.append(failure.description)
        }
        let shown = causes.prefix(3).joined(separator: "; ") + (causes.count > 3 ? "; ..." : "")
        return HTTPError(
            503, "symbols_unavailable",
            "\(count: outcome.failedFrames, "frame") could not be symbolicated because their symbols could not be"
                + " read now: \(shown). Retry later, or add ?partial=1 to accept the answer with those frames failed.",
            headers: [("Retry-After", String(HTTPError.retryAfterSeconds))])
    }
}
