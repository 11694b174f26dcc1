// The crash report model: what every report format parses into and what the symbolicator
// reads. Parsers live in the Reports target; they also keep, per frame, where its text sits in
// the original document so the writer can rewrite frames in place and leave every other byte.

/// Which document shape a report arrived in; the writer answers in the same shape by default.
public enum ReportFormat: String, Sendable, Hashable, CaseIterable {
    /// Apple's text `.crash` layout (Report Version 104/105/106/12), possibly preceded by noise.
    case text
    /// Text layout whose first line is a one-line JSON header (bug_type 109 / 309).
    case jsonHeaderText = "json-header-text"
    /// iOS 15+ / macOS 12+ `.ips`: a JSON header line followed by a JSON body (bug_type 309).
    case ips
    /// A MetricKit `MXDiagnosticPayload` (alone or in an array) or a bare `MXCallStackTree`.
    case metricKit = "metrickit"
    /// spindump's layout of sample trees: a resource report (`Event: cpu usage`, ...) of
    /// microstackshots, a hang report (`Event: hang`), or spindump's process sections, possibly
    /// after a one-line JSON header; written back in place like a text report.
    case microstackshot
    /// The output of macOS's `sample` tool (Report Version 7): a call graph per thread; written
    /// back in place, each node in the form `sample` gives a node it has symbols for.
    case sample
    /// The Swift runtime's own crash report (`SWIFT_BACKTRACE=...,format=text`), written back in
    /// place with each frame's symbol after its address, as the runtime writes it.
    case swiftBacktrace = "swift-backtrace"
    /// The same in JSON (`format=json`): frame objects gain the runtime's own keys.
    case swiftBacktraceJSON = "swift-backtrace-json"
    /// A KSCrash JSON report (KSCrash 1.x, 2.x, Sentry's SentryCrash fork); written back as the
    /// same JSON with symbolicated keys added to each frame.
    case kscrash
    /// A Sentry event JSON (`exception` / `threads` stack traces, `debug_meta.images`); written back
    /// as the same JSON with each frame's function, file and line, inlined frames inserted.
    case sentryEvent = "sentry-event"
    /// A PLCrashReporter protobuf report (`.plcrash`); written as Apple's text.
    case plcrash
}

/// One `Key: value` header line of a text report (or a top-level scalar of an `.ips` body),
/// in document order. Keys may repeat.
public struct HeaderField: Sendable, Hashable {
    public var key: String
    public var value: String

    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

/// One loaded image, from `Binary Images:` or `.ips` `usedImages`.
public struct BinaryImage: Sendable, Hashable {
    public var loadAddress: UInt64
    /// Size in bytes when known (text reports print an inclusive end address: size = end - load + 1).
    public var size: UInt64?
    public var name: String
    public var arch: Arch?
    public var uuid: BuildID?
    public var path: String?
    public var version: String?
    /// Text reports mark the main executable with `+` (macOS) or `(*)`.
    public var isMarked: Bool

    public init(
        loadAddress: UInt64, size: UInt64? = nil, name: String, arch: Arch? = nil, uuid: BuildID? = nil,
        path: String? = nil, version: String? = nil, isMarked: Bool = false
    ) {
        self.loadAddress = loadAddress
        self.size = size
        self.name = name
        self.arch = arch
        self.uuid = uuid
        self.path = path
        self.version = version
        self.isMarked = isMarked
    }

    public func contains(_ address: UInt64) -> Bool {
        guard address >= loadAddress else { return false }
        guard let size else { return false }
        return address - loadAddress < size
    }
}

/// One frame of a backtrace as the report states it.
public struct Frame: Sendable, Hashable {
    /// The frame number as printed (`0`, `1`, ...).
    public var number: Int
    /// The image name column (text) or the image's name (`.ips`), when present.
    public var imageName: String?
    /// Index into `CrashReport.images` when the image is known.
    public var imageIndex: Int?
    /// The absolute address of the frame (the PC or a return address), as printed.
    public var address: UInt64
    /// What the report already says about the frame: `symbol + off`, a symbol from `.ips`, ...
    public var symbol: String?
    public var symbolOffset: UInt64?
    public var sourceFile: String?
    public var sourceLine: Int?
    /// False for the program counter (frame 0 of a thread), true for return addresses, which
    /// are looked up at address - 1.
    public var isReturnAddress: Bool
    /// Byte range in the original document of the text this frame's symbol column occupies
    /// (text reports; nil for `.ips` and for parenthesized backtraces). Writers use it.
    public var symbolColumn: Range<Int>?
    /// The report states this frame but it cannot be read: a line inside a text backtrace that
    /// opens with a frame number but holds no address, an `.ips` frame without an `imageOffset`.
    /// It keeps its place (the frames after it are read on) and what could be read of it (number,
    /// image name); `address` is 0 and means nothing. It is never looked up (status `malformed`)
    /// and the writers leave it as the report has it.
    public var isMalformed: Bool
    /// Text reports: the inline levels an earlier symbolication wrote for this frame, as a byte
    /// range in the original document; nil when there are none. In a backtrace they are the
    /// lines right before the frame's line that repeat its number and address (innermost first);
    /// in a sample tree, the lines right after it that repeat it but for the symbol column
    /// (outermost first), the range running from the end of the frame's line to the end of the
    /// last. They are levels of this frame, not frames, and a writer that symbolicates the frame
    /// replaces them.
    public var levelLines: Range<Int>?

    public init(
        number: Int, imageName: String? = nil, imageIndex: Int? = nil, address: UInt64, symbol: String? = nil,
        symbolOffset: UInt64? = nil, sourceFile: String? = nil, sourceLine: Int? = nil, isReturnAddress: Bool,
        symbolColumn: Range<Int>? = nil, isMalformed: Bool = false
    ) {
        self.number = number
        self.imageName = imageName
        self.imageIndex = imageIndex
        self.address = address
        self.symbol = symbol
        self.symbolOffset = symbolOffset
        self.sourceFile = sourceFile
        self.sourceLine = sourceLine
        self.isReturnAddress = isReturnAddress
        self.symbolColumn = symbolColumn
        self.isMalformed = isMalformed
    }

    /// The address as people read it (`0x102bc83dc`); nil for a malformed frame, which has none.
    public var addressText: String? { isMalformed ? nil : ASCII.hex(address) }

    /// True when the report names the frame itself (a symbol that is not `???` or `<redacted>`,
    /// nor the frame's image: `backtrace_symbols` writes `Image + offset` for a frame it has no
    /// symbol for, the offset from the image's start).
    public var isNamedByReport: Bool {
        guard let symbol, !symbol.isEmpty else { return false }
        return symbol != "???" && symbol != "<redacted>" && symbol != imageName
    }
}

/// A thread's backtrace, or one of the other backtraces a report carries.
public struct Backtrace: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case thread
        /// `Last Exception Backtrace:`; every frame is a return address.
        case lastException = "last-exception"
        /// A backtrace inside Application Specific Information (`.ips` `asiBacktraces`).
        case applicationSpecific = "application-specific"
        /// Samples aggregated into a tree (MetricKit with `callStackPerThread: false`): frames in
        /// document order, roots outermost; each frame says whether it is a return address.
        case sampleTree = "sample-tree"
    }

    public var kind: Kind
    public var number: Int?
    public var name: String?
    public var queue: String?
    public var crashed: Bool
    public var frames: [Frame]

    public init(
        kind: Kind, number: Int? = nil, name: String? = nil, queue: String? = nil, crashed: Bool = false,
        frames: [Frame] = []
    ) {
        self.kind = kind
        self.number = number
        self.name = name
        self.queue = queue
        self.crashed = crashed
        self.frames = frames
    }
}

/// Names one frame of a report: the index of its backtrace in `CrashReport.backtraces` and
/// the index of the frame in that backtrace.
public struct FrameID: Hashable, Comparable, Sendable {
    public var backtrace: Int
    public var frame: Int

    public init(backtrace: Int, frame: Int) {
        self.backtrace = backtrace
        self.frame = frame
    }

    /// One word into the hasher, not two: the writers look every frame's result up.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(UInt64(truncatingIfNeeded: backtrace) &<< 32 ^ UInt64(truncatingIfNeeded: frame))
    }

    /// What `Dictionary` and `Set` hash a frame's id with: the word `hash(into:)` feeds, mixed
    /// with the table's seed by SplitMix64's finalizer instead of SipHash (a report's results
    /// are looked up per frame by the symbolicator, the writers and the server; the ids are
    /// ours, never chosen by a client). Equal ids give equal values, as `Hashable` requires.
    public func _rawHashValue(seed: Int) -> Int {
        var x =
            UInt64(truncatingIfNeeded: seed)
            ^ (UInt64(truncatingIfNeeded: backtrace) &<< 32 ^ UInt64(truncatingIfNeeded: frame))
        x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: x ^ (x >> 31))
    }

    public static func < (a: FrameID, b: FrameID) -> Bool {
        (a.backtrace, a.frame) < (b.backtrace, b.frame)
    }
}

public struct CrashReport: Sendable {
    public var format: ReportFormat
    /// The original bytes, exactly as read.
    public var original: [UInt8]
    /// Every `Key: value` header line (text) or top-level scalar (`.ips`), in order.
    public var fields: [HeaderField]
    /// The one-line JSON header of `.ips` and JSON-header text reports, as raw JSON text.
    public var jsonHeader: String?
    /// Threads first (in report order), then the Last Exception Backtrace and ASI backtraces.
    public var backtraces: [Backtrace]
    public var images: [BinaryImage]
    /// The report's process arch (`Code Type:` or `.ips` `cpuType`), when stated.
    public var arch: Arch?
    public var applicationSpecificInformation: String?
    /// A MetricKit payload's diagnostics, by where they sit (`crashDiagnostics[0]`, ...), also the
    /// ones without a call stack; empty for every other format.
    public var diagnostics: [String] = []
    /// What was done to the bytes before they were read, or what they look like that the user
    /// should hear (`the report looks line-wrapped at 76 columns: 3 lines rejoined`); one line each.
    public var notes: [String] = []

    public init(
        format: ReportFormat, original: [UInt8], fields: [HeaderField] = [], jsonHeader: String? = nil,
        backtraces: [Backtrace] = [], images: [BinaryImage] = [], arch: Arch? = nil,
        applicationSpecificInformation: String? = nil
    ) {
        self.format = format
        self.original = original
        self.fields = fields
        self.jsonHeader = jsonHeader
        self.backtraces = backtraces
        self.images = images
        self.arch = arch
        self.applicationSpecificInformation = applicationSpecificInformation
    }

    /// The first header field with this key (exact, case-sensitive match).
    public func field(_ key: String) -> String? {
        fields.first { $0.key == key }?.value
    }

    public var threads: [Backtrace] { backtraces.filter { $0.kind == .thread } }

    public var frameCount: Int { backtraces.reduce(0) { $0 + $1.frames.count } }

    /// The image a frame belongs to, under ImageMap's rule (the parser's index, else the address).
    public func image(for frame: Frame) -> BinaryImage? {
        ImageMap.index(of: frame, in: images).map { images[$0] }
    }
}
