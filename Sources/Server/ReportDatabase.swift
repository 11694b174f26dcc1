// Stored reports in a store folder: `reports.sqlite` beside the symbol store, through the store's
// SQLite wrapper (Store's Database: one `check` per call, errors carrying SQLite's code, message
// and the SQL). One row per report (the original bytes, the latest symbolicated output, counts,
// a revision that `replace` compares) and one row per (missing UUID, report) pair, which is how an
// upload finds the reports to re-symbolicate and how `GET /v1/missing` counts waiting reports.
// One connection behind a lock, WAL mode with synchronous=FULL, so a report answered 201 for is
// on the disk, power failure included; every query is reset when read, so no statement holds
// an old snapshot open; several server processes may share the file, which is
// why a replace is a compare-and-swap on the revision rather than a blind overwrite.

import BuildFiles
import Foundation
import SymbolicateModel

// @unchecked: the connection (a Database, not thread-safe) is only used inside `locked`.
final class ReportDatabase: ReportStorage, @unchecked Sendable {
    static let fileName = "reports.sqlite"
    /// `PRAGMA user_version` of the current layout: 1 added `reports.revision`, 2 the listing's
    /// `app`, `version` and `facts` (JSON of ListingFacts), 3 `missing.cache` (the dyld shared
    /// cache holding a missing system image).
    static let schemaVersion: Int64 = 3

    private let database: Database
    /// Serializes every use of `database`.
    private let lock = Locked(())
    let path: String

    init(path: String) throws {
        database = try Database(path: path, mode: .readWrite)
        self.path = path
        database.setBusyTimeout(milliseconds: 5000)
        try database.exec(
            """
            PRAGMA journal_mode=WAL;
            PRAGMA synchronous=FULL;
            CREATE TABLE IF NOT EXISTS reports(
                id TEXT PRIMARY KEY, created_at REAL NOT NULL, updated_at REAL NOT NULL, format TEXT,
                original BLOB NOT NULL, output BLOB NOT NULL, content_type TEXT NOT NULL,
                frames_symbolicated INTEGER NOT NULL, frames_total INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS missing(
                uuid TEXT NOT NULL, report_id TEXT NOT NULL, name TEXT NOT NULL,
                PRIMARY KEY(uuid, report_id)) WITHOUT ROWID;
            CREATE INDEX IF NOT EXISTS missing_by_report ON missing(report_id);
            """)
        try migrate()
    }

    /// Brings a database written by an earlier version to the current layout (in place, once).
    private func migrate() throws {
        guard try database.pragmaInteger("user_version") < ReportDatabase.schemaVersion else { return }
        try database.writeTransaction {
            guard try database.pragmaInteger("user_version") < ReportDatabase.schemaVersion else { return }
            let columns = try database.prepare("SELECT name FROM pragma_table_info('reports')")
            var names = Set<String>()
            while try columns.step() { names.insert(columns.text(0)) }
            if !names.contains("revision") {
                try database.exec("ALTER TABLE reports ADD COLUMN revision INTEGER NOT NULL DEFAULT 0")
            }
            for column in ["app", "version", "facts"] where !names.contains(column) {
                try database.exec("ALTER TABLE reports ADD COLUMN \(column) TEXT")
            }
            let missingColumns = try database.prepare("SELECT name FROM pragma_table_info('missing')")
            var missingNames = Set<String>()
            while try missingColumns.step() { missingNames.insert(missingColumns.text(0)) }
            if !missingNames.contains("cache") { try database.exec("ALTER TABLE missing ADD COLUMN cache TEXT") }
            try database.exec(
                """
                CREATE INDEX IF NOT EXISTS reports_by_update ON reports(updated_at);
                PRAGMA user_version = \(ReportDatabase.schemaVersion);
                """)
        }
    }

    var description: String { "\(ReportDatabase.fileName) at \(path)" }

    func create(_ report: StoredReport) throws -> (stored: StoredReport, created: Bool) {
        try locked {
            let created = try database.writeTransaction { () throws -> Bool in
                let insert = try database.cached(
                    """
                    INSERT OR IGNORE INTO reports(id, created_at, updated_at, format, original, output, content_type,
                        frames_symbolicated, frames_total, app, version, facts, revision)
                        VALUES(?,?,?,?,?,?,?,?,?,?,?,?,1)
                    """)
                try bind(report, to: insert)
                try insert.run()
                guard database.changes == 1 else { return false }
                try writeMissing(report)
                return true
            }
            guard let stored = try read(id: report.id) else {
                throw SymbolicateError(
                    .internal, "the report \(report.id) was stored but cannot be read back", path: path)
            }
            return (stored, created)
        }
    }

    func report(id: String) throws -> StoredReport? {
        try locked { try read(id: id) }
    }

    func replace(_ old: StoredReport, with new: StoredReport) throws -> ReplaceOutcome {
        try locked {
            try database.writeTransaction { () throws -> ReplaceOutcome in
                let update = try database.cached(
                    """
                    UPDATE reports SET created_at = ?2, updated_at = ?3, format = ?4, original = ?5, output = ?6,
                        content_type = ?7, frames_symbolicated = ?8, frames_total = ?9, app = ?10, version = ?11,
                        facts = ?12, revision = revision + 1
                    WHERE id = ?1 AND revision = ?13
                    """)
                try bind(new, to: update)
                try update.bind(13, Int64(old.revision ?? "") ?? -1)
                try update.run()
                if database.changes == 1 {
                    try writeMissing(new)
                    return .replaced
                }
                let exists = try database.cached("SELECT 1 FROM reports WHERE id = ?")
                defer { exists.reset() }
                try exists.bind(1, new.id)
                return try exists.step() ? .conflict : .gone
            }
        }
    }

    func delete(id: String) throws -> Bool {
        try locked {
            try database.writeTransaction { () throws -> Bool in
                let delete = try database.cached("DELETE FROM reports WHERE id = ?")
                try delete.bind(1, id)
                try delete.run()
                let removed = database.changes == 1
                let marks = try database.cached("DELETE FROM missing WHERE report_id = ?")
                try marks.bind(1, id)
                try marks.run()
                return removed
            }
        }
    }

    func list(limit: Int, missing: String?) throws -> [ReportListing] {
        try locked {
            let statement: Statement
            if let missing {
                statement = try database.cached(
                    """
                    SELECT r.id, r.updated_at FROM reports r JOIN missing m ON m.report_id = r.id
                    WHERE m.uuid = ? ORDER BY r.updated_at DESC, r.id LIMIT ?
                    """)
                try statement.bind(1, missing)
                try statement.bind(2, Int64(limit))
            } else {
                statement = try database.cached(
                    "SELECT id, updated_at FROM reports ORDER BY updated_at DESC, id LIMIT ?")
                try statement.bind(1, Int64(limit))
            }
            defer { statement.reset() }
            var listings: [ReportListing] = []
            while try statement.step() {
                listings.append(ReportListing(id: statement.text(0), updatedAt: statement.double(1)))
            }
            return listings
        }
    }

    func list(limit: Int, filter: ReportFilter) throws -> [ReportListing] {
        try locked {
            var conditions: [String] = []
            var values: [String] = []
            if let missing = filter.missing {
                conditions.append("id IN (SELECT report_id FROM missing WHERE uuid = ?)")
                values.append(missing)
            }
            if let app = filter.app {
                conditions.append("app = ?")
                values.append(app)
            }
            if let version = filter.version {
                conditions.append("version = ?")
                values.append(version)
            }
            let condition = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            let statement = try database.prepare(
                """
                SELECT id, updated_at, facts, (SELECT COUNT(*) FROM missing m WHERE m.report_id = reports.id)
                FROM reports \(condition) ORDER BY updated_at DESC, id LIMIT ?
                """)
            for (i, value) in values.enumerated() { try statement.bind(Int32(i + 1), value) }
            try statement.bind(Int32(values.count + 1), Int64(limit))
            var listings: [ReportListing] = []
            while try statement.step() {
                listings.append(
                    ReportListing(
                        id: statement.text(0), updatedAt: statement.double(1),
                        facts: statement.isNull(2) ? nil : Self.facts(statement.text(2)),
                        missingCount: Int(statement.int64(3))))
            }
            return listings
        }
    }

    private static func facts(_ json: String) -> ListingFacts? {
        try? JSONDecoder().decode(ListingFacts.self, from: Data(json.utf8))
    }

    func waitingUUIDs() throws -> [String] {
        try locked { try strings("SELECT DISTINCT uuid FROM missing ORDER BY uuid", nil) }
    }

    func reportsMissing(_ uuid: String) throws -> [String] {
        try locked { try strings("SELECT report_id FROM missing WHERE uuid = ? ORDER BY report_id", uuid) }
    }

    func missingSummary(limit: Int) throws -> [MissingEntry] {
        try locked {
            let statement = try database.cached(
                "SELECT uuid, MAX(name), COUNT(*) AS n, MAX(cache) FROM missing GROUP BY uuid ORDER BY n DESC, uuid LIMIT ?"
            )
            defer { statement.reset() }
            try statement.bind(1, Int64(limit))
            var entries: [MissingEntry] = []
            while try statement.step() {
                entries.append(
                    MissingEntry(
                        uuid: statement.text(0), name: statement.text(1), reports: Int(statement.int64(2)),
                        cache: statement.isNull(3) ? nil : statement.text(3)))
            }
            return entries
        }
    }

    func count() throws -> Int? {
        try locked {
            let statement = try database.cached("SELECT COUNT(*) FROM reports")
            defer { statement.reset() }
            return try statement.step() ? Int(statement.int64(0)) : 0
        }
    }

    func checkReachable() throws {
        _ = try count()
    }

    func removeExpired(before cutoff: Double, dryRun: Bool) throws -> [String] {
        try locked {
            let select = try database.cached("SELECT id FROM reports WHERE updated_at < ? ORDER BY updated_at")
            defer { select.reset() }
            try select.bind(1, cutoff)
            var ids: [String] = []
            while try select.step() { ids.append(select.text(0)) }
            guard !dryRun, !ids.isEmpty else { return ids }
            try database.writeTransaction {
                for id in ids {
                    // Written since the listing? Then it is not expired any more.
                    let delete = try database.cached("DELETE FROM reports WHERE id = ? AND updated_at < ?")
                    try delete.bind(1, id)
                    try delete.bind(2, cutoff)
                    try delete.run()
                }
                try database.exec("DELETE FROM missing WHERE report_id NOT IN (SELECT id FROM reports)")
            }
            return ids
        }
    }

    // MARK: - Rows

    private func read(id: String) throws -> StoredReport? {
        let select = try database.cached(
            """
            SELECT id, created_at, updated_at, format, original, output, content_type, frames_symbolicated,
                frames_total, revision, facts
            FROM reports WHERE id = ?
            """)
        defer { select.reset() }
        try select.bind(1, id)
        guard try select.step() else { return nil }
        var report = StoredReport(
            id: select.text(0), createdAt: select.double(1), updatedAt: select.double(2),
            format: select.isNull(3) ? nil : select.text(3), original: select.withBlob(4) { Array($0) },
            output: select.withBlob(5) { Array($0) }, contentType: select.text(6),
            framesSymbolicated: Int(select.int64(7)), framesTotal: Int(select.int64(8)), missing: [],
            missingNames: [:], revision: String(select.int64(9)))
        report.facts = select.isNull(10) ? nil : Self.facts(select.text(10))
        let missing = try database.cached("SELECT uuid, name, cache FROM missing WHERE report_id = ? ORDER BY uuid")
        defer { missing.reset() }
        try missing.bind(1, id)
        while try missing.step() {
            let uuid = missing.text(0)
            report.missing.append(uuid)
            report.missingNames[uuid] = missing.text(1)
            if !missing.isNull(2) { report.missingCaches[uuid] = missing.text(2) }
        }
        return report
    }

    /// Binds parameters 1-9 (id .. frames_total) of an INSERT or UPDATE of `report`.
    private func bind(_ report: StoredReport, to statement: Statement) throws {
        try statement.bind(1, report.id)
        try statement.bind(2, report.createdAt)
        try statement.bind(3, report.updatedAt)
        if let format = report.format { try statement.bind(4, format) } else { try statement.bindNull(4) }
        try statement.bind(5, bytes: report.original)
        try statement.bind(6, bytes: report.output)
        try statement.bind(7, report.contentType)
        try statement.bind(8, Int64(report.framesSymbolicated))
        try statement.bind(9, Int64(report.framesTotal))
        let facts = report.facts
        if let app = facts?.app { try statement.bind(10, app) } else { try statement.bindNull(10) }
        if let version = facts?.version { try statement.bind(11, version) } else { try statement.bindNull(11) }
        if let facts, let json = try? JSONEncoder().encode(facts) {
            try statement.bind(12, String(decoding: json, as: UTF8.self))
        } else {
            try statement.bindNull(12)
        }
    }

    /// Replaces the report's rows in `missing` (inside the caller's transaction).
    private func writeMissing(_ report: StoredReport) throws {
        let clear = try database.cached("DELETE FROM missing WHERE report_id = ?")
        try clear.bind(1, report.id)
        try clear.run()
        let insert = try database.cached(
            "INSERT OR REPLACE INTO missing(uuid, report_id, name, cache) VALUES(?,?,?,?)")
        for uuid in report.missing {
            try insert.bind(1, uuid)
            try insert.bind(2, report.id)
            try insert.bind(3, report.missingNames[uuid] ?? "")
            if let cache = report.missingCaches[uuid] { try insert.bind(4, cache) } else { try insert.bindNull(4) }
            try insert.run()
        }
    }

    private func strings(_ sql: String, _ parameter: String?) throws -> [String] {
        let statement = try database.cached(sql)
        defer { statement.reset() }
        if let parameter { try statement.bind(1, parameter) }
        var values: [String] = []
        while try statement.step() { values.append(statement.text(0)) }
        return values
    }

    /// Caps this connection's database at its current size plus `pages` pages (SQLite's
    /// `PRAGMA max_page_count`): a write past it fails with SQLITE_FULL, as on a full disk. The
    /// tests of what a full disk answers use it; an unprivileged test cannot fill a file system.
    func capSize(extraPages pages: Int64) throws {
        try locked {
            let count = try database.pragmaInteger("page_count")
            try database.exec("PRAGMA max_page_count = \(count + max(0, pages))")
        }
    }

    private func locked<T>(_ body: () throws -> T) throws -> T {
        try lock.withLock { _ in try body() }
    }
}
