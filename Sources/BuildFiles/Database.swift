// Database: the one place the project talks to SQLite (the symbol store, and the server's stored
// reports through `package` access). A connection with a statement cache, and
// a statement with typed binds and column reads. Every result code goes through `check`, which
// turns a failure into a SymbolicateError carrying SQLite's code, its message and the SQL that
// failed, so a broken store says what broke. Neither type is thread-safe: whoever owns a
// connection serializes access to it (the catalog sits behind a mutex, build files are read
// through a pool of connections, one per thread at a time).

internal import CSQLite
import SymbolicateModel

package final class Database {
    package enum Mode {
        case readOnly
        /// Read-only on a file nobody will write again (a published build file): SQLite then takes
        /// no file locks and keeps its page cache between statements, which halves a lookup.
        case immutable
        /// Read-write, creating the file when it is missing.
        case readWrite
    }

    private let handle: OpaquePointer
    package let path: String
    private var cache: [String: Statement] = [:]

    /// Set once, before the process's first connection opens.
    private static let configured: Void = { _ = symbolicate_sqlite3_disable_memory_statistics() }()

    package init(path: String, mode: Mode) throws {
        Database.configured
        var db: OpaquePointer?
        let flags: Int32
        let name: String
        switch mode {
        case .readOnly:
            (flags, name) = (SQLITE_OPEN_READONLY, path)
        case .immutable:
            (flags, name) = (SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, "file:\(Database.uriEscaped(path))?immutable=1")
        case .readWrite:
            (flags, name) = (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, path)
        }
        let rc = sqlite3_open_v2(name, &db, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            if let db { sqlite3_close_v2(db) }
            throw Database.error(rc: rc, message: "cannot open: \(message)", sql: nil, path: path)
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
    }

    /// `path` with every byte but unreserved ones and `/` percent-encoded, for a `file:` URI.
    static func uriEscaped(_ path: String) -> String {
        ASCII.percentEncoded(path, keeping: [UInt8(ascii: "/")])
    }

    deinit {
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Turns a result code into success or a thrown error naming the SQL.
    func check(_ rc: Int32, _ sql: String?) throws {
        try Database.check(rc, handle: handle, sql: sql, path: path)
    }

    static func check(_ rc: Int32, handle: OpaquePointer, sql: String?, path: String) throws {
        guard rc != SQLITE_OK, rc != SQLITE_ROW, rc != SQLITE_DONE else { return }
        throw Database.error(rc: rc, message: String(cString: sqlite3_errmsg(handle)), sql: sql, path: path)
    }

    static func error(rc: Int32, message: String, sql: String?, path: String) -> SymbolicateError {
        let code: SymbolicateError.Code
        switch rc & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED: code = .conflict
        case SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_READONLY,
            SQLITE_PERM:
            code = .io
        default: code = .internal
        }
        let meaning = String(cString: sqlite3_errstr(rc))
        var text = "SQLite error \(rc) (\(meaning))"
        if message != meaning { text += ": \(message)" }
        // A full disk has nothing to do with the statement; other errors name it, briefly (a
        // multi-row INSERT is over a kilobyte of placeholders).
        if let sql, rc & 0xFF != SQLITE_FULL { text += " -- in: \(excerpt(sql))" }
        return SymbolicateError(code, text, path: path, cause: SQLiteResult(rawValue: rc))
    }

    /// The start of `sql` on one line, at most `limit` characters.
    static func excerpt(_ sql: String, limit: Int = 80) -> String {
        let words = sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).joined(separator: " ")
        return words.count <= limit ? words : String(words.prefix(limit)) + "..."
    }

    /// True when `error` is SQLite's "database or disk is full" (by its result code).
    package static func isDiskFull(_ error: any Error) -> Bool {
        (error as? SymbolicateError)?.sqliteResult?.isDiskFull == true
    }

    /// Runs one or more statements that return no rows.
    package func exec(_ sql: String) throws {
        var errmsg: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errmsg)
        if rc != SQLITE_OK {
            let message = errmsg.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errmsg)
            throw Database.error(rc: rc, message: message, sql: sql, path: path)
        }
    }

    /// A fresh statement, finalized when the returned object goes away.
    package func prepare(_ sql: String) throws -> Statement {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        try check(rc, sql)
        guard let stmt else {
            throw SymbolicateError(.internal, "SQLite prepared no statement for: \(sql)", path: path)
        }
        return Statement(handle: stmt, connection: handle, path: path, sql: sql)
    }

    /// A statement kept for the life of the connection, reset before it is handed out.
    package func cached(_ sql: String) throws -> Statement {
        if let stmt = cache[sql] {
            stmt.reset()
            return stmt
        }
        let stmt = try prepare(sql)
        cache[sql] = stmt
        return stmt
    }

    /// The integer a `PRAGMA name` returns (user_version, application_id, page_count, ...).
    package func pragmaInteger(_ name: String) throws -> Int64 {
        let stmt = try prepare("PRAGMA \(name)")
        guard try stmt.step() else { return 0 }
        return stmt.int64(0)
    }

    package var changes: Int { Int(sqlite3_changes(handle)) }

    package func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// Runs `body` inside BEGIN IMMEDIATE ... COMMIT, rolling back when it throws. IMMEDIATE takes
    /// the write lock up front, so two writers queue on the busy timeout instead of deadlocking.
    /// `undo` runs when the body or the COMMIT fails, before the ROLLBACK lets other writers
    /// in: the place to take back what the body did outside the database.
    package func writeTransaction<T>(_ body: () throws -> T, undo: () -> Void = {}) throws -> T {
        try exec("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try exec("COMMIT")
            return result
        } catch {
            undo()
            try? exec("ROLLBACK")
            throw error
        }
    }
}

package final class Statement {
    private let handle: OpaquePointer
    // The connection, for error messages only: sqlite3_close_v2 keeps it alive until its last
    // statement is finalized, so a statement may outlive its Database object safely.
    private let connection: OpaquePointer
    private let path: String
    package let sql: String

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    fileprivate init(handle: OpaquePointer, connection: OpaquePointer, path: String, sql: String) {
        self.handle = handle
        self.connection = connection
        self.path = path
        self.sql = sql
    }

    private func check(_ rc: Int32) throws {
        try Database.check(rc, handle: connection, sql: sql, path: path)
    }

    deinit { sqlite3_finalize(handle) }

    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // Binds take 1-based parameter indices, as SQLite does.
    package func bind(_ index: Int32, _ value: Int64) throws {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    package func bind(_ index: Int32, _ value: Double) throws {
        try check(sqlite3_bind_double(handle, index, value))
    }

    package func bind(_ index: Int32, _ value: String) throws {
        var value = value
        let rc = value.withUTF8 { utf8 -> Int32 in
            guard let base = utf8.baseAddress, utf8.count > 0 else {
                return sqlite3_bind_text(handle, index, "", 0, Statement.transient)
            }
            return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                sqlite3_bind_text(handle, index, $0, Int32(utf8.count), Statement.transient)
            }
        }
        try check(rc)
    }

    package func bind(_ index: Int32, bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try bind(index, bytes: $0) }
    }

    /// Binds a copy of `bytes` (SQLite copies them before this returns).
    package func bind(_ index: Int32, bytes: UnsafeRawBufferPointer) throws {
        // A zero-length blob needs a non-null pointer, or SQLite binds NULL.
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            try check(sqlite3_bind_zeroblob(handle, index, 0))
            return
        }
        try check(sqlite3_bind_blob(handle, index, base, Int32(bytes.count), Statement.transient))
    }

    package func bindNull(_ index: Int32) throws {
        try check(sqlite3_bind_null(handle, index))
    }

    /// Advances: true when a row is ready to read, false when the statement is done.
    package func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        try check(rc)
        return false
    }

    /// Steps a statement that returns no rows, then resets it for the next use.
    package func run() throws {
        defer { sqlite3_reset(handle) }
        _ = try step()
    }

    // Column reads take 0-based indices, as SQLite does.
    package func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    package func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// Runs `body` over a BLOB column's bytes in place (valid only until the next step or reset).
    package func withBlob<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        let base = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return body(UnsafeRawBufferPointer(start: base, count: base == nil ? 0 : count))
    }

    package func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}
