// What `--strict` (and `?strict=1`) fails on, and the one line said when a report yielded
// nothing at all: both read from an outcome, so the CLI and the server judge alike.

import SymbolicateModel

extension SymbolicationOutcome {
    /// Images `--strict` fails on: not a system image (SystemImage), with frames the report
    /// does not name, whose symbols are missing, mismatched, unreadable, or cannot be looked
    /// for (no UUID).
    public var strictFailures: [ImageOutcome] {
        images.filter { outcome in
            guard !SystemImage.isSystem(outcome.image), !outcome.isNamed else { return false }
            switch outcome.status {
            case .missing, .uuidMismatch, .failed, .noUUID: return true
            case .symbolicated, .symbolTableOnly: return false
            }
        }
    }

    /// One line when the report has frames and none was symbolicated or named by the report;
    /// nil otherwise.
    public var nothingResolved: String? {
        guard totalFrames > 0, symbolicatedFrames == 0, namedByReportFrames == 0 else { return nil }
        let withUUID = images.filter { $0.image.uuid != nil }.count
        if images.isEmpty {
            return "nothing was symbolicated: the report's frames point into no image it lists"
                + " (is its Binary Images list missing?)"
        }
        return "nothing was symbolicated: no symbols were found for any of the \(count: images.count, "image")"
            + " the frames point into (\(withUUID) with a UUID); give the dSYMs as SYMBOL_PATH or import them"
    }
}
