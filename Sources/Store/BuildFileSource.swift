// BuildFileSource: a build file of the store queried in place, as a SymbolSource. Opening it
// checks that it is a build file of this schema version and loads the small tables (files,
// functions, locations) into memory; a lookup is then one index seek on the ranges table plus a
// walk up the inline chain in memory, so it answers exactly what SymbolTable.lookup answers for
// the table the file was written from.
//
// Lookups may come from many threads at once: each takes a reader (a read-only connection with
// its prepared range query) from a small pool and puts it back, so threads never share a
// connection and never wait on each other for longer than a pop.

internal import CSQLite
import SymbolicateModel

final class BuildFileSource: SymbolSource, Sendable {
    let build: BuildInfo
    let path: String
    let files: [String]
    let functions: [SymbolTable.Function]
    let locations: [SymbolTable.Location]
    let rangeCount: Int

    private final class Reader {
        let database: Database
        let query: Statement

        init(path: String) throws {
            database = try Database(path: path, mode: .immutable)
            try database.exec("PRAGMA query_only=1; PRAGMA mmap_size=268435456; PRAGMA cache_size=-4096")
            query = try database.prepare(BuildFile.rangeQuery)
        }
    }

    private let pool: Locked<[Reader]>
    private static let maxIdleReaders = 8

    /// Opens the build file at `path`. Throws BuildFile.VersionMismatch for a file of another
    /// schema version, and a SymbolicateError for anything that is not a readable build file.
    init(path: String) throws {
        let reader = try Reader(path: path)
        let db = reader.database
        let meta = try BuildFileSource.readHeader(db, path: path)
        self.build = meta.build
        self.path = path

        var files: [String] = []
        files.reserveCapacity(meta.files)
        let fileRows = try db.prepare("SELECT id, name FROM files ORDER BY id")
        while try fileRows.step() {
            guard fileRows.int64(0) == files.count else { throw BuildFileSource.damaged("files", path) }
            files.append(fileRows.text(1))
        }
        var functions: [SymbolTable.Function] = []
        functions.reserveCapacity(meta.functions)
        let functionRows = try db.prepare("SELECT id, name, entry FROM functions ORDER BY id")
        while try functionRows.step() {
            guard functionRows.int64(0) == functions.count else { throw BuildFileSource.damaged("functions", path) }
            functions.append(.init(name: functionRows.text(1), entry: UInt64(bitPattern: functionRows.int64(2))))
        }
        var locations: [SymbolTable.Location] = []
        locations.reserveCapacity(meta.locations)
        let locationRows = try db.prepare("SELECT id, function, file, line, parent FROM locations ORDER BY id")
        while try locationRows.step() {
            guard locationRows.int64(0) == locations.count else { throw BuildFileSource.damaged("locations", path) }
            locations.append(
                .init(
                    function: UInt32(truncatingIfNeeded: locationRows.int64(1)),
                    file: UInt32(truncatingIfNeeded: locationRows.int64(2)),
                    line: UInt32(truncatingIfNeeded: locationRows.int64(3)),
                    parent: UInt32(truncatingIfNeeded: locationRows.int64(4))))
        }
        guard files.count == meta.files, functions.count == meta.functions, locations.count == meta.locations
        else { throw BuildFileSource.damaged("table sizes", path) }
        self.files = files
        self.functions = functions
        self.locations = locations
        self.rangeCount = meta.ranges
        self.pool = Locked([reader])
    }

    /// Checks that `path` is a build file of this schema version and returns whose it is, without
    /// loading its tables; `integrity` also runs SQLite's quick_check (reads the whole file).
    static func inspect(path: String, integrity: Bool) throws -> BuildInfo {
        let db = try Database(path: path, mode: .readOnly)
        let meta = try readHeader(db, path: path)
        if integrity {
            let check = try db.prepare("PRAGMA quick_check")
            while try check.step() {
                let line = check.text(0)
                guard line == "ok" else { throw SymbolicateError(.io, "build file is damaged: \(line)", path: path) }
            }
        }
        return meta.build
    }

    /// The application id, schema version and meta table.
    private static func readHeader(_ db: Database, path: String) throws -> MetaValues {
        let appID = try db.pragmaInteger("application_id")
        guard appID == BuildFile.applicationID else {
            throw SymbolicateError(.io, "not a symbolicate build file (application_id \(appID))", path: path)
        }
        let version = try db.pragmaInteger("user_version")
        guard version == BuildFile.schemaVersion else {
            throw BuildFile.VersionMismatch(found: version, path: path)
        }
        return try readMeta(db, path: path)
    }

    private static func damaged(_ what: String, _ path: String) -> SymbolicateError {
        SymbolicateError(.io, "build file is damaged (\(what) do not match its header); re-import it", path: path)
    }

    private struct MetaValues {
        var build: BuildInfo
        var files = 0, functions = 0, locations = 0, ranges = 0
    }

    private static func readMeta(_ db: Database, path: String) throws -> MetaValues {
        let rows = try db.prepare("SELECT key, value FROM meta")
        var texts: [String: String] = [:]
        var numbers: [String: Int64] = [:]
        while try rows.step() {
            texts[rows.text(0)] = rows.text(1)
            numbers[rows.text(0)] = rows.int64(1)
        }
        guard let uuidText = texts[BuildFile.Meta.uuid], let uuid = BuildID(string: uuidText),
            let arch = texts[BuildFile.Meta.arch], let kindText = texts[BuildFile.Meta.kind],
            let kind = SymbolKind(rawValue: kindText)
        else { throw damaged("meta", path) }
        func count(_ key: String) throws -> Int {
            guard let n = numbers[key], n >= 0, n <= Int64(UInt32.max) else { throw damaged("meta \(key)", path) }
            return Int(n)
        }
        let build = BuildInfo(
            uuid: uuid, arch: Arch(arch), name: texts[BuildFile.Meta.name] ?? "",
            textVMAddress: UInt64(bitPattern: numbers[BuildFile.Meta.textVMAddress] ?? 0),
            textSize: UInt64(bitPattern: numbers[BuildFile.Meta.textSize] ?? 0), kind: kind,
            path: texts[BuildFile.Meta.path] ?? "")
        return MetaValues(
            build: build, files: try count(BuildFile.Meta.files), functions: try count(BuildFile.Meta.functions),
            locations: try count(BuildFile.Meta.locations), ranges: try count(BuildFile.Meta.ranges))
    }

    // MARK: Lookup

    func lookup(_ address: UInt64) -> [SymbolTable.Resolved]? {
        guard let start = try? rangeLocation(containing: address) else { return nil }
        var result: [SymbolTable.Resolved] = []
        var index = start
        var guardCount = 0
        while index != SymbolTable.none, Int(index) < locations.count, guardCount < 256 {
            let loc = locations[Int(index)]
            guard Int(loc.function) < functions.count else { break }
            let f = functions[Int(loc.function)]
            let file = Int(loc.file) < files.count ? files[Int(loc.file)] : nil
            result.append(.init(function: f.name, entry: f.entry, file: file, line: loc.line == 0 ? nil : Int(loc.line)))
            index = loc.parent
            guardCount += 1
        }
        return result.isEmpty ? nil : result
    }

    /// The innermost location of the range holding `address`; nil when none does or it is a gap.
    func rangeLocation(containing address: UInt64) throws -> UInt32? {
        let reader = try takeReader()
        defer { putBack(reader) }
        let query = reader.query
        defer { query.reset() }
        try query.bind(1, BuildFile.key(address))
        guard try query.step() else { return nil }
        let location = UInt32(truncatingIfNeeded: query.int64(0))
        return location == SymbolTable.none ? nil : location
    }

    private func takeReader() throws -> Reader {
        if let reader = pool.withLock({ $0.popLast() }) { return reader }
        return try Reader(path: path)
    }

    private func putBack(_ reader: Reader) {
        let extra: Reader? = pool.withLock { readers in
            guard readers.count < BuildFileSource.maxIdleReaders else { return reader }
            readers.append(reader)
            return nil
        }
        _ = extra  // closed here, outside the lock, when the last reference goes
    }
}
