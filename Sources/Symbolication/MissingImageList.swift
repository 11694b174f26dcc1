// A report with frames but no image list: an Apple text report cut before `Binary Images`, an
// `.ips` without `usedImages`, any report whose images are gone. Without the list no frame can
// be matched to a build (no UUID, no load address), so "0 images" alone would read as a quiet
// zero; this says what is missing and what it means, for the CLI's stderr, the server's
// `X-Symbolicate-Warning` and `--format json`'s `warnings`.

import SymbolicateModel

extension ProcessedReport {
    /// The one line said when the report has frames and no image list; nil otherwise.
    public var missingImageList: String? {
        guard report.images.isEmpty, outcome.totalFrames > 0 else { return nil }
        return "the report has \(count: outcome.totalFrames, "frame") but no image list"
            + " (\(Self.imageListName(report.format))), so no frame can be matched to a build"
            + " by UUID and only frames the report names itself are shown;"
            + " was it cut short? send the whole report"
    }

    /// Every line said on stderr after the summary (and sent as warnings by the server): the
    /// parser's notes, a missing image list, and the "nothing was symbolicated" line.
    public var warnings: [String] {
        var lines = report.notes
        if let missing = missingImageList {
            lines.append(missing)
        } else if let nothing = outcome.nothingResolved {
            lines.append(nothing)
        }
        return lines
    }

    /// How the format names its image list.
    static func imageListName(_ format: ReportFormat) -> String {
        switch format {
        case .text, .jsonHeaderText, .plcrash: return "its Binary Images section is missing"
        case .ips: return "its usedImages are missing"
        case .metricKit: return "its binaryUUID and offsetIntoBinaryTextSegment are missing"
        case .kscrash: return "its binary_images are missing"
        case .sentryEvent: return "its debug_meta.images are missing"
        case .swiftBacktrace, .swiftBacktraceJSON: return "its Images section is missing"
        case .microstackshot, .sample: return "its Binary Images section is missing"
        }
    }
}
