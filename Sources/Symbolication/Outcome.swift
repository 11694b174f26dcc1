// What symbolicating one report produced: a result for every frame, and for every image the
// report's frames point into, whether its symbols were found, missing, mismatched or unreadable.
// The CLI prints its summary from this, the server its headers and metrics, batch its tables.

import SymbolicateModel

public enum ImageStatus: Sendable, Hashable {
    /// Debug information found: functions, inline chains, files and lines.
    case symbolicated
    /// Only a symbol table (nlist / ELF symtab) was found: names and offsets, no files.
    case symbolTableOnly
    /// No symbol file with this UUID.
    case missing
    /// A symbol file for an image of the same name exists, but with another UUID: never used.
    case uuidMismatch(foundUUID: BuildID, foundArch: Arch, path: String)
    /// A symbol file with this UUID was found but could not be read.
    case failed(String)
    /// The report gives no UUID for the image.
    case noUUID
}

public struct ImageOutcome: Sendable {
    public var image: BinaryImage
    public var status: ImageStatus
    public var framesSymbolicated: Int = 0
    /// Frames we have no symbols for that the report names itself (`FrameStatus.namedByReport`).
    public var framesNamedByReport: Int = 0
    public var framesTotal: Int = 0
    /// The symbol file that answered for the image (for `-v`): a path the user gave, or the
    /// store build imported from `path`.
    public var servedBy: ServedBy?
    /// Symbol files with the image's UUID that could not be read (damaged DWARF, ...), passed
    /// over for the one that answered: said in the summary, never silent.
    public var unreadable: [String] = []
    /// Why the image's symbols could not be read (status `failed`): the first failure, with its
    /// code, so callers tell a bucket that may answer later (`unavailable`) from a damaged file.
    public var failure: SymbolicateError?

    public struct ServedBy: Sendable, Hashable {
        public var path: String
        public var fromStore: Bool
        public var kind: SymbolKind
    }

    /// Every frame in the image has a name: ours, or the report's own.
    public var isNamed: Bool { framesSymbolicated + framesNamedByReport >= framesTotal }

    /// One line for people: `symbolicated`, `missing 4C4C…-… (HoldApp arm64)`, ...
    public var summary: String {
        let name = image.name
        let arch = image.arch.map { " \($0)" } ?? ""
        let uuid = image.uuid?.uuidString ?? "no UUID"
        switch status {
        case .symbolicated:
            return "\(name): symbolicated \(framesSymbolicated)/\(framesTotal) frames"
        case .symbolTableOnly:
            guard unreadable.isEmpty else {
                return
                    "\(name): symbol table only, \(framesSymbolicated)/\(framesTotal) frames: the dSYM could not be read: "
                    + unreadable.joined(separator: "; ")
            }
            return
                "\(name): symbol table only, \(framesSymbolicated)/\(framesTotal) frames (no file:line without a dSYM)"
        case .missing where isNamed:
            return "\(name): \(count: framesNamedByReport, "frame") named by the report (no symbols for \(uuid))"
        case .missing:
            return "\(name): missing \(uuid) (\(name)\(arch))"
        case .uuidMismatch(let found, let foundArch, let path):
            return
                "\(name): uuid-mismatch: found \(name) with UUID \(found.uuidString) (\(foundArch)) at \(path), report needs \(uuid)"
        case .failed(let message):
            return "\(name): symbols for \(uuid) could not be read: \(message)"
        case .noUUID:
            return "\(name): the report gives no UUID for this image"
        }
    }
}

public struct SymbolicationOutcome: Sendable {
    /// A result for every frame of `report.backtraces`.
    public var results: [FrameID: FrameResult]
    /// Every image that frames point into, in report order.
    public var images: [ImageOutcome]
    public var symbolicatedFrames: Int
    public var totalFrames: Int
    /// Frames we have no symbols for that the report names itself.
    public var namedByReportFrames: Int = 0

    /// Images with a UUID whose symbols were not found or did not match. An image with no
    /// symbols whose every frame the report already names is not missing anything; a mismatched
    /// or unreadable symbol file is always listed.
    public var missing: [BinaryImage] {
        images.compactMap { outcome in
            switch outcome.status {
            case .missing: return outcome.isNamed ? nil : outcome.image
            case .uuidMismatch, .failed: return outcome.image
            default: return nil
            }
        }
    }

    /// Frames whose image's symbols could not be read (`FrameStatus.failed`).
    public var failedFrames: Int {
        results.values.reduce(0) { $0 + ($1.status == .failed ? 1 : 0) }
    }

    /// The failures that left frames `failed`, one per image, in report order.
    public var failures: [SymbolicateError] { images.compactMap(\.failure) }

    /// True when every frame in an image with a UUID was symbolicated or named by the report.
    public var isComplete: Bool {
        images.allSatisfy { $0.image.uuid == nil || $0.isNamed }
    }
}
