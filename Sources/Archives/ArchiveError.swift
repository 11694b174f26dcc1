// ArchiveError: every failure the archive reader reports, in swift-nio's shape: a code scripts
// can switch on (a struct around a private enum, so codes can be added), a message for people,
// libarchive's own words, the archive and member it happened in, and whether anything more can
// be read from this archive (`fatal`). Whether a damaged member is fatal follows the reader's
// policy: an import refuses the whole archive, a batch run counts the member and goes on.

public struct ArchiveError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case cannotOpen, damagedHeader, damagedData, truncated, unsafeName, tooManyEntries, expansionBomb
            case memberTooLarge
            case resources, libraryMissing
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The file is not an archive libarchive can open.
        public static let cannotOpen = Code(.cannotOpen)
        /// A member's header could not be read.
        public static let damagedHeader = Code(.damagedHeader)
        /// A member's data could not be read (broken compressed stream, truncated archive).
        public static let damagedData = Code(.damagedData)
        /// The archive ends before its end: a zip without its central directory, read up to the cut.
        public static let truncated = Code(.truncated)
        /// A member name climbs out of its folder (`..`, an absolute path, a drive letter).
        public static let unsafeName = Code(.unsafeName)
        /// More members than the limit allows.
        public static let tooManyEntries = Code(.tooManyEntries)
        /// More uncompressed bytes than the limit allows.
        public static let expansionBomb = Code(.expansionBomb)
        /// One member is larger than the caller's limit for a member.
        public static let memberTooLarge = Code(.memberTooLarge)
        /// libarchive could not allocate.
        public static let resources = Code(.resources)
        /// libarchive itself could not be loaded (not installed, or not the expected version).
        public static let libraryMissing = Code(.libraryMissing)

        public var description: String { "\(base)" }
    }

    public var code: Code
    /// For people: what happened, in one line.
    public var message: String
    /// libarchive's error string, when it gave one ("" otherwise).
    public var detail: String
    /// The archive's path.
    public var path: String
    /// The member's name, when the error concerns one whose name is known.
    public var member: String?
    /// True when nothing more can be read from this archive.
    public var fatal: Bool
    /// The member's number in the archive (from 1), when the error concerns one.
    public var memberIndex: Int?
    /// The name of the member before it, which places a member whose own name is lost.
    public var previousMember: String?

    public init(_ code: Code, _ message: String, detail: String = "", path: String, member: String? = nil, fatal: Bool)
    {
        self.code = code
        self.message = message
        self.detail = detail
        self.path = path
        self.member = member
        self.fatal = fatal
    }

    public var description: String { message }
}
