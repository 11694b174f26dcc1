// SymbolTable: the symbols of one build, flattened for lookup, in the shape of Sentry's SymCache.
// Object-file readers produce it (from DWARF, or from nlist / ELF symtab when there is no debug
// information); the store writes it to SQLite and reads it back; the symbolicator looks up in it.
//
// Address ranges are sorted by start; a range ends where the next one starts. Each range points
// at its innermost source location; a location chains through `parent` to the location it was
// inlined into, so a lookup is one binary search plus a walk up the chain.

public enum SymbolKind: String, Sendable, Hashable, Comparable {
    /// Only a symbol table (nlist / ELF symtab): names, no files or lines.
    case symbolTable = "symtab"
    /// DWARF: functions, inline chains, file and line.
    case debugInfo = "dwarf"
    /// Exported names only (a dyld shared cache image without its local symbols): functions
    /// that are not exported have no name. Any symbol table of the same build is better.
    case exports

    private var rank: Int {
        switch self {
        case .exports: return 0
        case .symbolTable: return 1
        case .debugInfo: return 2
        }
    }
    public static func < (a: SymbolKind, b: SymbolKind) -> Bool { a.rank < b.rank }
}

/// What identifies a build and how to map report addresses into it.
public struct BuildInfo: Sendable, Hashable {
    public var uuid: BuildID
    public var arch: Arch
    /// The image name (`iOSCrashingTest`, `UIKitCore`): the file name of the binary.
    public var name: String
    /// `__TEXT` vmaddr (Mach-O) or the first mapping (ELF: the lowest PT_LOAD, page-aligned).
    public var textVMAddress: UInt64
    public var textSize: UInt64
    public var kind: SymbolKind
    /// Where the symbols were read from.
    public var path: String

    public init(
        uuid: BuildID, arch: Arch, name: String, textVMAddress: UInt64, textSize: UInt64, kind: SymbolKind,
        path: String
    ) {
        self.uuid = uuid
        self.arch = arch
        self.name = name
        self.textVMAddress = textVMAddress
        self.textSize = textSize
        self.kind = kind
        self.path = path
    }
}

public struct SymbolTable: Sendable {
    public static let none: UInt32 = .max

    public struct Function: Sendable, Hashable {
        /// The name as stored: the linkage (mangled) name when there is one.
        public var name: String
        /// Address of the function's first instruction (0 when only inlined copies exist).
        public var entry: UInt64

        public init(name: String, entry: UInt64) {
            self.name = name
            self.entry = entry
        }
    }

    public struct Location: Sendable, Hashable {
        /// Index into `functions`.
        public var function: UInt32
        /// Index into `files`, or `SymbolTable.none`.
        public var file: UInt32
        /// `SymbolTable.none` when the debug information gives no line. 0 is the line table's own
        /// line 0 (code no source line owns: thunks, outlined copies, `<compiler-generated>`),
        /// which Apple's tools print as `(File.swift:0)`, so it is kept.
        public var line: UInt32
        /// Index into `locations` of the call site this location was inlined into, or `SymbolTable.none`.
        public var parent: UInt32

        public init(function: UInt32, file: UInt32, line: UInt32, parent: UInt32) {
            self.function = function
            self.file = file
            self.line = line
            self.parent = parent
        }
    }

    public struct Range: Sendable, Hashable {
        public var start: UInt64
        /// Index into `locations` of the innermost location, or `SymbolTable.none` for a gap.
        public var location: UInt32

        public init(start: UInt64, location: UInt32) {
            self.start = start
            self.location = location
        }
    }

    public var build: BuildInfo
    public var files: [String]
    public var functions: [Function]
    public var locations: [Location]
    /// Sorted by `start`; each range ends where the next begins; the last one should be a gap.
    public var ranges: [Range]

    public init(
        build: BuildInfo, files: [String] = [], functions: [Function] = [], locations: [Location] = [],
        ranges: [Range] = []
    ) {
        self.build = build
        self.files = files
        self.functions = functions
        self.locations = locations
        self.ranges = ranges
    }

    /// One resolved level of a lookup, innermost first.
    public struct Resolved: Sendable, Hashable {
        public var function: String
        /// Entry address of `function` (0 when unknown).
        public var entry: UInt64
        public var file: String?
        public var line: Int?

        public init(function: String, entry: UInt64, file: String?, line: Int?) {
            self.function = function
            self.entry = entry
            self.file = file
            self.line = line
        }
    }

    /// A stored line as the model's line: nil for `SymbolTable.none`, else the line (0 included).
    public static func line(_ stored: UInt32) -> Int? {
        stored == SymbolTable.none ? nil : Int(stored)
    }

    /// The index of the range holding `address`, or nil.
    public func rangeIndex(containing address: UInt64) -> Int? {
        let lo = ranges.partitioningIndex { $0.start > address }
        guard lo > 0 else { return nil }
        return ranges[lo - 1].location == SymbolTable.none ? nil : lo - 1
    }

    /// The inline chain at `address` (an address in the build's own vmaddr space), innermost
    /// first; nil when no range covers it. Corrupt indices end the chain instead of trapping.
    public func lookup(_ address: UInt64) -> [Resolved]? {
        guard let r = rangeIndex(containing: address) else { return nil }
        return SymbolTable.chain(from: ranges[r].location, files: files, functions: functions, locations: locations)
    }

    /// Levels a chain may have at the most; a longer one (a cycle, in a corrupt file) is cut there.
    public static let maxChainLength = 256

    /// The inline chain that starts at location `start`, innermost first (nil when it has no
    /// level), with each row read by a closure that answers nil for an index out of range: the
    /// one walk of every symbol source, whether its rows are in memory or in a file. A location
    /// or function that is not there ends the chain; a file that is not there is no file.
    /// (Inlinable, so that the closures of a caller in another module are inlined into the walk.)
    @inlinable
    public static func chain(
        from start: UInt32, location: (UInt32) throws -> Location?, function: (UInt32) throws -> Function?,
        file: (UInt32) throws -> String?
    ) rethrows -> [Resolved]? {
        var result: [Resolved] = []
        var index = start
        while index != SymbolTable.none, result.count < maxChainLength, let loc = try location(index) {
            guard let f = try function(loc.function) else { break }
            result.append(
                Resolved(function: f.name, entry: f.entry, file: try file(loc.file), line: SymbolTable.line(loc.line)))
            index = loc.parent
        }
        return result.isEmpty ? nil : result
    }

    /// `chain(from:location:function:file:)` over rows in memory.
    @inlinable
    public static func chain(
        from start: UInt32, files: [String], functions: [Function], locations: [Location]
    ) -> [Resolved]? {
        chain(from: start, location: { locations.row($0) }, function: { functions.row($0) }, file: { files.row($0) })
    }
}

extension Array {
    /// The element at a stored index, or nil when the index is out of range (`SymbolTable.none` included).
    @usableFromInline
    func row(_ index: UInt32) -> Element? {
        Int(index) < count ? self[Int(index)] : nil
    }
}

/// Anything that answers address -> inline chain for one build: an in-memory `SymbolTable`
/// read from a file, or a build file in the symbol store queried in place.
public protocol SymbolSource: Sendable {
    var build: BuildInfo { get }
    /// Innermost first; `address` is in the build's own vmaddr space (unslid). Throws a
    /// SymbolicateError naming the build and the cause when the symbols cannot be read (a
    /// damaged or vanished build file): never nil for a failure.
    func lookup(_ address: UInt64) throws -> [SymbolTable.Resolved]?
    /// True for a build file of the store, false for symbols read from a file given on the
    /// command line (what `-v` and `--format json` say served the image).
    var isFromStore: Bool { get }
}

extension SymbolSource {
    public var isFromStore: Bool { false }
}

extension SymbolTable: SymbolSource {}
