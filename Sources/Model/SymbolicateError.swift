// The error every part of symbolicate throws: a code that callers branch on (the CLI maps it to
// an exit code, the server to an HTTP status), a message for people that says what to do, and
// where it happened. Modelled on swift-nio's FileSystemError.

public struct SymbolicateError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Hashable, Sendable {
            case badInput = "bad_input"
            case unsupported
            case notFound = "not_found"
            case io
            case conflict
            case limit
            case `internal`
        }

        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The input (report, symbol file, archive, request) is malformed.
        public static let badInput = Code(.badInput)
        /// The input is well-formed but of a kind we do not handle (e.g. not an Apple report).
        public static let unsupported = Code(.unsupported)
        public static let notFound = Code(.notFound)
        /// Reading or writing a file failed.
        public static let io = Code(.io)
        public static let conflict = Code(.conflict)
        /// A size, time or count limit was reached.
        public static let limit = Code(.limit)
        /// A bug or an unexpected state of a library.
        public static let `internal` = Code(.internal)

        public var description: String { kind.rawValue }
    }

    public var code: Code
    public var message: String
    /// The file or object the error is about, when there is one.
    public var path: String?

    public init(_ code: Code, _ message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    public var description: String {
        if let path { return "\(path): \(message)" }
        return message
    }
}
