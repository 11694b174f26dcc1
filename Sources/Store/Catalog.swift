// Catalog: `catalog.sqlite`, the list of every build in a store. One row per UUID + arch with
// what `symbolicate list` shows and what a lookup needs to pick a build file. WAL mode, so
// readers in any number of processes never wait for an import; writers take the write lock up
// front (BEGIN IMMEDIATE) and wait for each other on a busy timeout instead of failing.
//
// Like Database, a Catalog is used by one thread at a time; SymbolStore keeps it behind a mutex.

import BuildFiles
import Foundation
import SymbolicateModel

final class Catalog {
    static let schemaVersion: Int64 = 1
    /// `PRAGMA application_id`: "SYMC".
    static let applicationID: Int64 = 0x5359_4D43
    /// How long a writer waits for another process's transaction before giving up.
    static let busyTimeoutMilliseconds: Int32 = 30_000

    let database: Database
    let path: String

    private static let columns = """
        uuid, arch, name, kind, text_vmaddr, text_size, source_path, imported_at, last_used_at, byte_size,
        status, schema_version, file, sha256, origin, checksum
        """
    /// Columns added after the first layout, without a schema version of their own: a catalog
    /// that lacks them gains them when opened to write, and is read with NULL in their place when
    /// it cannot be (a read-only mount). Releases that do not know them read and write the
    /// catalog as before, leaving them empty in the rows they write.
    private static let addedColumns = ["sha256", "origin", "checksum"]

    /// The column list reads select: NULL for an added column the catalog does not have.
    private var selected = Catalog.columns

    init(path: String) throws {
        self.path = path
        database = try Database(path: path, mode: .readWrite)
        database.setBusyTimeout(milliseconds: Catalog.busyTimeoutMilliseconds)
        try Catalog.enableWriteAheadLog(database)
        // FULL: a commit reaches the disk before it returns, so a build an import answered for
        // (its file already synced and renamed) is in the catalog after a power failure too; in
        // WAL mode, NORMAL would keep it only until the next checkpoint.
        try database.exec("PRAGMA synchronous=FULL; PRAGMA foreign_keys=OFF")
        try migrate()
    }

    /// Opens the catalog of a store this process cannot write (a read-only mount, a folder of
    /// another user): read-only, and without the WAL's shared-memory file when it cannot be
    /// created there, as an immutable file (nobody can be writing what nobody can write).
    init(readingOnly path: String) throws {
        self.path = path
        var database = try Database(path: path, mode: .readOnly)
        database.setBusyTimeout(milliseconds: Catalog.busyTimeoutMilliseconds)
        var version: Int64
        do {
            version = try database.pragmaInteger("user_version")
        } catch let error as SymbolicateError where error.code == .io {
            database = try Database(path: path, mode: .immutable)
            version = try database.pragmaInteger("user_version")
        }
        self.database = database
        let present = try columnNames()
        for column in Catalog.addedColumns where !present.contains(column) {
            selected = selected.replacingOccurrences(of: ", \(column)", with: ", NULL")
        }
        guard version == Catalog.schemaVersion else {
            throw SymbolicateError(
                .unsupported,
                "the store catalog has schema version \(version) and this symbolicate reads version "
                    + "\(Catalog.schemaVersion); the store is read-only, so it cannot be set up or upgraded here",
                path: path)
        }
        try checkApplicationID()
    }

    /// Switches a new catalog to WAL. Two processes creating a store at the same moment can get
    /// SQLITE_BUSY here without the busy handler being consulted (SQLite reports the lock
    /// upgrade as a deadlock), so the switch is retried for as long as the busy timeout.
    private static func enableWriteAheadLog(_ database: Database) throws {
        let deadline = Date().addingTimeInterval(Double(busyTimeoutMilliseconds) / 1000)
        while true {
            do {
                try database.exec("PRAGMA journal_mode=WAL")
                return
            } catch let error as SymbolicateError where error.code == .conflict && Date() < deadline {
                usleep(useconds_t.random(in: 2_000...20_000))
            }
        }
    }

    private func migrate() throws {
        let found = try database.pragmaInteger("user_version")
        if found == Catalog.schemaVersion {
            try checkApplicationID()
            return try addColumns()
        }
        guard found == 0 else {
            throw SymbolicateError(
                .unsupported,
                "the store catalog has schema version \(found) and this symbolicate reads version "
                    + "\(Catalog.schemaVersion): use the symbolicate that wrote it, or start a new store",
                path: path)
        }
        try database.writeTransaction {
            // Another process may have created it while we waited for the lock.
            guard try database.pragmaInteger("user_version") == 0 else { return }
            try database.exec(
                """
                CREATE TABLE builds(
                    uuid TEXT NOT NULL, arch TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL,
                    text_vmaddr INTEGER NOT NULL, text_size INTEGER NOT NULL, source_path TEXT NOT NULL,
                    imported_at REAL NOT NULL, last_used_at REAL, byte_size INTEGER NOT NULL,
                    status TEXT NOT NULL, schema_version INTEGER NOT NULL, file TEXT NOT NULL, sha256 TEXT, origin TEXT,
                    checksum TEXT,
                    PRIMARY KEY (uuid, arch)) WITHOUT ROWID;
                CREATE INDEX builds_by_name ON builds(name COLLATE NOCASE);
                PRAGMA user_version=\(Catalog.schemaVersion);
                PRAGMA application_id=\(Catalog.applicationID);
                """)
        }
        try checkApplicationID()
    }

    /// A catalog created before a column of `addedColumns` existed gains it (empty for its rows:
    /// builds without a checksum are checked as before, without an origin say none).
    private func addColumns() throws {
        guard !Set(Catalog.addedColumns).isSubset(of: try columnNames()) else { return }
        try database.writeTransaction {
            let present = try columnNames()
            for column in Catalog.addedColumns where !present.contains(column) {
                try database.exec("ALTER TABLE builds ADD COLUMN \(column) TEXT")
            }
        }
    }

    private func columnNames() throws -> Set<String> {
        let stmt = try database.prepare("SELECT name FROM pragma_table_info('builds')")
        var names = Set<String>()
        while try stmt.step() { names.insert(stmt.text(0)) }
        return names
    }

    private func checkApplicationID() throws {
        let id = try database.pragmaInteger("application_id")
        guard id == Catalog.applicationID else {
            throw SymbolicateError(.badInput, "not a symbolicate store catalog (application_id \(id))", path: path)
        }
    }

    // MARK: Reading

    func build(uuid: BuildID, arch: Arch) throws -> StoredBuild? {
        let stmt = try database.cached("SELECT \(selected) FROM builds WHERE uuid = ?1 AND arch = ?2")
        defer { stmt.reset() }
        try stmt.bind(1, uuid.uuidString)
        try stmt.bind(2, arch.rawValue)
        return try stmt.step() ? Catalog.row(stmt) : nil
    }

    func builds(uuid: BuildID) throws -> [StoredBuild] {
        let stmt = try database.cached("SELECT \(selected) FROM builds WHERE uuid = ?1 ORDER BY arch")
        defer { stmt.reset() }
        try stmt.bind(1, uuid.uuidString)
        return try rows(stmt)
    }

    /// Builds of an image with this name (any case) and another UUID, by UUID, at most `limit`.
    func builds(named name: String, otherThan uuid: BuildID, limit: Int) throws -> [StoredBuild] {
        let stmt = try database.cached(
            "SELECT \(selected) FROM builds WHERE name = ?1 COLLATE NOCASE AND uuid <> ?2 ORDER BY uuid, arch LIMIT ?3"
        )
        defer { stmt.reset() }
        try stmt.bind(1, name)
        try stmt.bind(2, uuid.uuidString)
        try stmt.bind(3, Int64(limit))
        return try rows(stmt)
    }

    func all() throws -> [StoredBuild] {
        let stmt = try database.cached("SELECT \(selected) FROM builds ORDER BY name, uuid, arch")
        defer { stmt.reset() }
        return try rows(stmt)
    }

    private func rows(_ stmt: Statement) throws -> [StoredBuild] {
        var result: [StoredBuild] = []
        while try stmt.step() {
            if let row = Catalog.row(stmt) { result.append(row) }
        }
        return result
    }

    /// Decodes one row; a row that does not decode (hand-edited catalog) is skipped, and its
    /// build file is then reported (or listed again) by `verify` as an orphan.
    private static func row(_ s: Statement) -> StoredBuild? {
        guard let uuid = BuildID(string: s.text(0)), let kind = SymbolKind(rawValue: s.text(3)) else { return nil }
        return StoredBuild(
            uuid: uuid, arch: Arch(s.text(1)), name: s.text(2), kind: kind,
            textVMAddress: UInt64(bitPattern: s.int64(4)), textSize: UInt64(bitPattern: s.int64(5)),
            sourcePath: s.text(6), importedAt: Date(timeIntervalSince1970: s.double(7)),
            lastUsedAt: s.isNull(8) ? nil : Date(timeIntervalSince1970: s.double(8)), byteSize: s.int64(9),
            status: BuildStatus(rawValue: s.text(10)) ?? .damaged, schemaVersion: Int(s.int64(11)),
            // The file name follows from UUID and arch; the stored column is for people, and is
            // never trusted as a path (a tampered catalog must not make `remove` unlink elsewhere).
            file: SymbolStore.fileName(uuid: uuid, arch: Arch(s.text(1))),
            checksum: BuildChecksum.stored(s.isNull(15) ? nil : s.text(15), sha256: s.isNull(13) ? nil : s.text(13)),
            origin: s.isNull(14) ? nil : BuildOrigin.decode(s.text(14)))
    }

    func statistics() throws -> StoreStatistics {
        let stmt = try database.cached(
            "SELECT count(*), coalesce(sum(byte_size), 0), coalesce(sum(kind = 'dwarf'), 0) FROM builds")
        defer { stmt.reset() }
        guard try stmt.step() else {
            return StoreStatistics(builds: 0, bytes: 0, debugInfoBuilds: 0, symbolTableBuilds: 0)
        }
        let count = Int(stmt.int64(0))
        let dwarf = Int(stmt.int64(2))
        return StoreStatistics(
            builds: count, bytes: stmt.int64(1), debugInfoBuilds: dwarf, symbolTableBuilds: count - dwarf)
    }

    // MARK: Writing (callers wrap these in database.writeTransaction)

    func put(_ b: StoredBuild) throws {
        let stmt = try database.cached(
            "INSERT OR REPLACE INTO builds(\(Catalog.columns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)"
        )
        defer { stmt.reset() }
        try stmt.bind(1, b.uuid.uuidString)
        try stmt.bind(2, b.arch.rawValue)
        try stmt.bind(3, b.name)
        try stmt.bind(4, b.kind.rawValue)
        try stmt.bind(5, Int64(bitPattern: b.textVMAddress))
        try stmt.bind(6, Int64(bitPattern: b.textSize))
        try stmt.bind(7, b.sourcePath)
        try stmt.bind(8, b.importedAt.timeIntervalSince1970)
        if let used = b.lastUsedAt { try stmt.bind(9, used.timeIntervalSince1970) } else { try stmt.bindNull(9) }
        try stmt.bind(10, b.byteSize)
        try stmt.bind(11, b.status.rawValue)
        try stmt.bind(12, Int64(b.schemaVersion))
        try stmt.bind(13, b.file)
        // A SHA-256 stays in its own column, where the releases that recorded it check it; a
        // CRC-32 goes in `checksum`, which they do not read (they would take it for damage).
        switch b.checksum {
        case .sha256(let digest)?:
            try stmt.bind(14, digest)
            try stmt.bindNull(16)
        case let checksum?:
            try stmt.bindNull(14)
            try stmt.bind(16, checksum.recorded)
        case nil:
            try stmt.bindNull(14)
            try stmt.bindNull(16)
        }
        if let origin = b.origin?.json { try stmt.bind(15, origin) } else { try stmt.bindNull(15) }
        try stmt.run()
    }

    func delete(uuid: BuildID, arch: Arch) throws {
        try run("DELETE FROM builds WHERE uuid = ?1 AND arch = ?2", uuid: uuid, arch: arch)
    }

    func setStatus(_ status: BuildStatus, uuid: BuildID, arch: Arch) throws {
        try run("UPDATE builds SET status = ?3 WHERE uuid = ?1 AND arch = ?2", uuid: uuid, arch: arch) {
            try $0.bind(3, status.rawValue)
        }
    }

    func touch(uuid: BuildID, arch: Arch, at date: Date) throws {
        try run("UPDATE builds SET last_used_at = ?3 WHERE uuid = ?1 AND arch = ?2", uuid: uuid, arch: arch) {
            try $0.bind(3, date.timeIntervalSince1970)
        }
    }

    /// Runs `sql` on one build's row: ?1 is its UUID, ?2 its arch, `bindRest` binds the others.
    private func run(
        _ sql: String, uuid: BuildID, arch: Arch, bindRest: (Statement) throws -> Void = { _ in }
    ) throws {
        let stmt = try database.cached(sql)
        defer { stmt.reset() }
        try stmt.bind(1, uuid.uuidString)
        try stmt.bind(2, arch.rawValue)
        try bindRest(stmt)
        try stmt.run()
    }
}

/// The store's writer connection to its catalog, opened by the first write: a process that only
/// reads (a report answered from the store) never pays for opening and setting up a second
/// connection. Used under its lock, as `Locked<Catalog>` is.
final class CatalogWriter: Sendable {
    private let connection = Locked<Catalog?>(nil)
    private let open: @Sendable () throws -> Catalog

    init(open: @escaping @Sendable () throws -> Catalog) {
        self.open = open
    }

    /// Runs `body` on the writer connection with its lock held, opening it first when needed;
    /// throws what opening throws.
    func withLock<Result>(_ body: (Catalog) throws -> Result) throws -> Result {
        try connection.withLock { connection in
            if let catalog = connection { return try body(catalog) }
            let catalog = try open()
            connection = catalog
            return try body(catalog)
        }
    }
}
