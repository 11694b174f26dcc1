// Errno: a POSIX error number as a value, in swift-system's shape (`Errno(rawValue:)`, named
// constants, `description` from strerror), thrown as the cause of a SymbolicateError so callers
// decide "disk full", "permission denied" or "not found" from the number, never from the text.
// SQLiteResult is the same for SQLite's result codes. `SymbolicateError.errno` and
// `.sqliteResult` find either one anywhere in an error's chain of causes.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's errno, now.
    public static var current: Errno { Errno(rawValue: errno) }

    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    public static let permissionDenied = Errno(rawValue: EACCES)
    public static let notPermitted = Errno(rawValue: EPERM)
    public static let noSpace = Errno(rawValue: ENOSPC)
    public static let diskQuotaExceeded = Errno(rawValue: EDQUOT)
    public static let readOnlyFileSystem = Errno(rawValue: EROFS)

    /// No space left, or over a quota: writing again after freeing space may succeed.
    public var isDiskFull: Bool { self == .noSpace || self == .diskQuotaExceeded }
    public var isPermissionDenied: Bool { self == .permissionDenied || self == .notPermitted }
    public var isNotFound: Bool { self == .noSuchFileOrDirectory }

    public var description: String { String(cString: strerror(rawValue)) }
}

/// A SQLite result code (extended codes kept; `primary` is the low byte that names the class).
public struct SQLiteResult: Error, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    public var primary: Int32 { rawValue & 0xFF }

    /// SQLITE_FULL (13): the database or the disk is full.
    public var isDiskFull: Bool { primary == 13 }
    /// SQLITE_PERM (3), SQLITE_READONLY (8), SQLITE_AUTH (23).
    public var isPermissionDenied: Bool { primary == 3 || primary == 8 || primary == 23 }
    /// SQLITE_CANTOPEN (14).
    public var isCannotOpen: Bool { primary == 14 }

    public var description: String { "SQLite result \(rawValue)" }
}

/// An error that keeps the lower-level error it stands for (SymbolicateError's cause, an
/// object-storage failure's errno), so the chain can be walked to the number underneath.
public protocol ErrorWithCause: Error {
    var underlyingError: (any Error)? { get }
}

extension SymbolicateError: ErrorWithCause {
    public var underlyingError: (any Error)? { cause }
}

extension SymbolicateError {
    /// The first cause in the chain that is `T` (this error's cause, its cause's cause, ...).
    public func firstCause<T: Error>(_ type: T.Type) -> T? {
        var next = cause
        var depth = 0
        while let error = next, depth < 16 {
            if let found = error as? T { return found }
            next = (error as? any ErrorWithCause)?.underlyingError
            depth += 1
        }
        return nil
    }

    /// The POSIX error underneath, if any.
    public var errno: Errno? { firstCause(Errno.self) }

    /// The SQLite result code underneath, if any.
    public var sqliteResult: SQLiteResult? { firstCause(SQLiteResult.self) }

    /// A full disk (or quota), by the number underneath: ENOSPC / EDQUOT, or SQLITE_FULL.
    public var isDiskFull: Bool { errno?.isDiskFull == true || sqliteResult?.isDiskFull == true }
}

extension SymbolicateError {
    /// A failed system call: `what` (what was being done), then the system's words for
    /// `errno`, which is kept as the cause.
    public static func system(
        _ what: String, code: Code = .io, path: String? = nil, errno: Errno = .current,
        function: String = #function, file: String = #fileID, line: Int = #line
    ) -> SymbolicateError {
        SymbolicateError(
            code, "\(what): \(errno)", path: path, cause: errno, function: function, file: file, line: line)
    }
}
