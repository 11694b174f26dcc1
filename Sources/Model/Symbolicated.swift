// What symbolication says about a frame: a status, and for a symbolicated frame the chain of
// source locations innermost first (inlined callees before their callers). Writers turn these
// into text lines or `.ips` frame objects.

/// One level of an inline chain, ready to print.
public struct SymbolicatedFrame: Sendable, Hashable {
    /// The name to show: demangled, Swift in Apple's simplified form.
    public var symbol: String
    /// The name as stored in the symbol file (mangled), when different.
    public var rawSymbol: String?
    /// Offset of the frame's address from the start of the (outermost) function; nil for inlined levels.
    public var symbolOffset: UInt64?
    /// Source file path as recorded in the debug information; nil for symbol-table-only results.
    public var file: String?
    public var line: Int?
    public var column: Int?
    /// True for every level but the last (outermost) one.
    public var isInline: Bool

    public init(
        symbol: String, rawSymbol: String? = nil, symbolOffset: UInt64? = nil, file: String? = nil,
        line: Int? = nil, column: Int? = nil, isInline: Bool = false
    ) {
        self.symbol = symbol
        self.rawSymbol = rawSymbol
        self.symbolOffset = symbolOffset
        self.file = file
        self.line = line
        self.column = column
        self.isInline = isInline
    }

    /// The last path component of `file`, as Apple's reports print it.
    public var fileName: String? {
        file.map { PathParts.name($0, backslash: true) }
    }
}

public enum FrameStatus: String, Sendable, Hashable, CaseIterable {
    case symbolicated
    /// The image's symbols were found but hold nothing at this address, or no symbols were found.
    case missingSymbol = "missing_symbol"
    /// No image of the report contains the address.
    case unknownImage = "unknown_image"
    /// The frame cannot be interpreted (address below the image's load address, ...).
    case malformed
    /// We have no symbols for the frame, but the report already names it (an `.ips` frame's
    /// `symbol`, a text frame printed as `symbol + offset`, as devices do for system libraries).
    /// The report's name is kept; the frame is not counted as missing.
    case namedByReport = "named_by_report"
    /// The image's symbols are (or may be) in the store but could not be read now: a damaged
    /// build file, a bucket that failed to answer. `FrameResult.error` names the build and cause.
    case failed
}

public struct FrameResult: Sendable, Hashable {
    public var status: FrameStatus
    /// Innermost first; empty unless `status == .symbolicated`.
    public var frames: [SymbolicatedFrame]
    /// Why the lookup failed (the build and the cause); set only when `status == .failed`.
    public var error: String?

    public init(status: FrameStatus, frames: [SymbolicatedFrame] = [], error: String? = nil) {
        self.status = status
        self.frames = frames
        self.error = error
    }
}
