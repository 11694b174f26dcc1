// The error every part of symbolicate throws: a code that callers branch on (the CLI maps it to
// an exit code, the server to an HTTP status), a message for people that says what to do, and
// where it happened, with the error underneath when there is one (a libdwarf, SQLite or POSIX
// failure wrapped into ours). Modelled on swift-nio's FileSystemError: code, message, cause,
// location. `description` is what people see and stays one line; `debugDescription` adds the
// cause and the source location for logs.

public struct SymbolicateError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Hashable, Sendable {
            case badInput = "bad_input"
            case unsupported
            case notFound = "not_found"
            case io
            case unavailable
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
        /// A service the store depends on (its bucket) does not answer or fails on its side;
        /// the same request may succeed later.
        public static let unavailable = Code(.unavailable)
        public static let conflict = Code(.conflict)
        /// A size, time or count limit was reached.
        public static let limit = Code(.limit)
        /// A bug or an unexpected state of a library.
        public static let `internal` = Code(.internal)

        public var description: String { kind.rawValue }
    }

    /// Where in our source the error was made, as swift-nio's `FileSystemError.SourceLocation`.
    public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
        public var function: String
        public var file: String
        public var line: Int

        public var description: String { "\(function) (\(file):\(line))" }
    }

    public var code: Code
    public var message: String
    /// The file or object the error is about, when there is one.
    public var path: String?
    /// The error underneath, when this one wraps another (a decoder's, a C library's, the system's).
    public var cause: (any Error)?
    public var location: SourceLocation

    public init(
        _ code: Code, _ message: String, path: String? = nil, cause: (any Error)? = nil,
        function: String = #function, file: String = #fileID, line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.cause = cause
        self.location = SourceLocation(function: function, file: file, line: line)
    }

    public var description: String {
        if let path { return "\(path): \(message)" }
        return message
    }

    /// The description, then the cause and where the error was made.
    public var debugDescription: String {
        var text = "\(code): \(description)"
        if let cause { text += " (cause: \(String(reflecting: cause)))" }
        return text + " at \(location)"
    }
}

extension SymbolicateError {
    /// `error` itself when it is one of ours, else an internal error that describes it and keeps
    /// it as the cause (so its errno or SQLite code still decides what it means).
    public static func wrapping(
        _ error: any Error, path: String? = nil, function: String = #function, file: String = #fileID,
        line: Int = #line
    ) -> SymbolicateError {
        if let ours = error as? SymbolicateError { return ours }
        return SymbolicateError(
            .internal, "\(error)", path: path, cause: error, function: function, file: file, line: line)
    }

    /// `path` does not exist. A name that is not valid UTF-8 reaches a Swift program repaired
    /// (U+FFFD in its place) and so names no file: the message says so when the path holds one.
    public static func noSuchFile(_ path: String) -> SymbolicateError {
        guard path.unicodeScalars.contains("\u{FFFD}") else {
            return SymbolicateError(.notFound, "no such file or folder", path: path)
        }
        return SymbolicateError(
            .notFound,
            "no such file or folder (if its name is not valid UTF-8, it arrives repaired, as shown, and cannot be"
                + " opened: rename it)", path: path)
    }
}
