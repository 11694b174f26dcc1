// Stored reports: `reports.sqlite` beside the symbol store. One row per report (the original bytes,
// the latest symbolicated output, counts) and one row per (missing UUID, report) pair, which is how
// an upload finds the reports to re-symbolicate and how `GET /v1/missing` counts waiting reports.
// One connection behind a lock (WAL mode); SQLite result codes are checked in one place.

import Foundation
internal import CSQLite
import SymbolicateModel

final class ReportDatabase: @unchecked Sendable {
    struct StoredReport: Sendable {
        var id: String
        var createdAt: Double
        var updatedAt: Double
        /// The output format asked for when the report was posted (nil: same as the input).
        var format: String?
        var original: [UInt8]
        var output: [UInt8]
        var contentType: String
        var framesSymbolicated: Int
        var framesTotal: Int
        var missing: [String]
    }

    struct MissingEntry: Sendable {
        var uuid: String
        var name: String
        var reports: Int
    }

    private let handle: OpaquePointer
    private let lock = NSLock()
    let path: String

    init(path: String) throws {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            if let db { sqlite3_close_v2(db) }
            throw SymbolicateError(.io, "cannot open the report database (SQLite \(rc))", path: path)
        }
        handle = db
        self.path = path
        sqlite3_busy_timeout(db, 5000)
        try exec(
            """
            PRAGMA journal_mode=WAL;
            PRAGMA synchronous=NORMAL;
            CREATE TABLE IF NOT EXISTS reports(
                id TEXT PRIMARY KEY, created_at REAL NOT NULL, updated_at REAL NOT NULL, format TEXT,
                original BLOB NOT NULL, output BLOB NOT NULL, content_type TEXT NOT NULL,
                frames_symbolicated INTEGER NOT NULL, frames_total INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS missing(
                uuid TEXT NOT NULL, report_id TEXT NOT NULL, name TEXT NOT NULL,
                PRIMARY KEY(uuid, report_id)) WITHOUT ROWID;
            CREATE INDEX IF NOT EXISTS missing_by_report ON missing(report_id);
            """)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Inserts or replaces a report and its missing list.
    func save(_ report: StoredReport, missingNames: [String: String]) throws {
        try locked {
            try exec("BEGIN IMMEDIATE")
            do {
                try run(
                    """
                    INSERT OR REPLACE INTO reports(id, created_at, updated_at, format, original, output, content_type,
                        frames_symbolicated, frames_total) VALUES(?,?,?,?,?,?,?,?,?)
                    """,
                    [.text(report.id), .real(report.createdAt), .real(report.updatedAt), report.format.map { .text($0) } ?? .null,
                     .blob(report.original), .blob(report.output), .text(report.contentType),
                     .integer(Int64(report.framesSymbolicated)), .integer(Int64(report.framesTotal))])
                try run("DELETE FROM missing WHERE report_id = ?", [.text(report.id)])
                for uuid in report.missing {
                    try run(
                        "INSERT OR REPLACE INTO missing(uuid, report_id, name) VALUES(?,?,?)",
                        [.text(uuid), .text(report.id), .text(missingNames[uuid] ?? "")])
                }
                try exec("COMMIT")
            } catch {
                try? exec("ROLLBACK")
                throw error
            }
        }
    }

    func report(id: String) throws -> StoredReport? {
        try locked {
            let rows = try query(
                """
                SELECT id, created_at, updated_at, format, original, output, content_type, frames_symbolicated, frames_total
                FROM reports WHERE id = ?
                """, [.text(id)])
            guard let row = rows.first, row.count == 9 else { return nil }
            let missing = try query("SELECT uuid FROM missing WHERE report_id = ? ORDER BY uuid", [.text(id)])
            return StoredReport(
                id: row[0].string ?? id, createdAt: row[1].double, updatedAt: row[2].double, format: row[3].string,
                original: row[4].bytes, output: row[5].bytes, contentType: row[6].string ?? "text/plain",
                framesSymbolicated: Int(row[7].int), framesTotal: Int(row[8].int),
                missing: missing.compactMap { $0.first?.string })
        }
    }

    /// Ids of reports waiting for any of these UUIDs (uppercase with dashes).
    func reportsMissing(_ uuids: [String]) throws -> [String] {
        try locked {
            var ids = Set<String>()
            for uuid in uuids {
                for row in try query("SELECT report_id FROM missing WHERE uuid = ?", [.text(uuid)]) {
                    if let id = row.first?.string { ids.insert(id) }
                }
            }
            return ids.sorted()
        }
    }

    func missingSummary(limit: Int) throws -> [MissingEntry] {
        try locked {
            try query(
                "SELECT uuid, MAX(name), COUNT(*) AS n FROM missing GROUP BY uuid ORDER BY n DESC, uuid LIMIT ?",
                [.integer(Int64(limit))]
            ).map { MissingEntry(uuid: $0[0].string ?? "", name: $0[1].string ?? "", reports: Int($0[2].int)) }
        }
    }

    func count() throws -> Int {
        try locked { Int(try query("SELECT COUNT(*) FROM reports", []).first?.first?.int ?? 0) }
    }

    // MARK: - SQLite plumbing

    enum Value {
        case null, integer(Int64), real(Double), text(String), blob([UInt8])

        var string: String? { if case .text(let s) = self { return s } else { return nil } }
        var int: Int64 {
            switch self {
            case .integer(let n): return n
            case .real(let d): return Int64(d)
            default: return 0
            }
        }
        var double: Double {
            switch self {
            case .real(let d): return d
            case .integer(let n): return Double(n)
            default: return 0
            }
        }
        var bytes: [UInt8] {
            switch self {
            case .blob(let b): return b
            case .text(let s): return Array(s.utf8)
            default: return []
            }
        }
    }

    private func locked<T>(_ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    private func check(_ rc: Int32, _ sql: String) throws {
        guard rc != SQLITE_OK, rc != SQLITE_ROW, rc != SQLITE_DONE else { return }
        let message = String(cString: sqlite3_errmsg(handle))
        throw SymbolicateError(.io, "report database: SQLite \(rc): \(message) -- in: \(sql)", path: path)
    }

    private func exec(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), sql)
    }

    private func run(_ sql: String, _ values: [Value]) throws {
        _ = try query(sql, values)
    }

    private func query(_ sql: String, _ values: [Value]) throws -> [[Value]] {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil), sql)
        guard let statement else { return [] }
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(statement, index)
            case .integer(let n): rc = sqlite3_bind_int64(statement, index, n)
            case .real(let d): rc = sqlite3_bind_double(statement, index, d)
            case .text(let s): rc = sqlite3_bind_text(statement, index, s, -1, transient)
            case .blob(let b):
                rc = b.withUnsafeBytes { sqlite3_bind_blob64(statement, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64($0.count), transient) }
            }
            try check(rc, sql)
        }
        var rows: [[Value]] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else {
                try check(rc, sql)
                break
            }
            var row: [Value] = []
            for column in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(statement, column)))
                case SQLITE_TEXT: row.append(.text(String(cString: sqlite3_column_text(statement, column))))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    if count > 0, let base = sqlite3_column_blob(statement, column) {
                        row.append(.blob(Array(UnsafeRawBufferPointer(start: base, count: count))))
                    } else {
                        row.append(.blob([]))
                    }
                default: row.append(.null)
                }
            }
            rows.append(row)
        }
        return rows
    }
}
