// Reading what a build file says about itself, without loading its tables: the application id
// (is it a build file at all), the schema version (is it one this program reads) and the meta
// table (whose build it is, how many rows each table holds). Used when a build is opened for
// lookups, and by `verify`, which checks every build file this way.

import SymbolicateModel

extension BuildFileSource {
    /// Checks that `path` is a build file of this schema version and returns whose it is, without
    /// loading its tables; `integrity` also runs SQLite's quick_check (reads the whole file).
    package static func inspect(path: String, integrity: Bool) throws -> BuildInfo {
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
    package static func readHeader(_ db: Database, path: String) throws -> MetaValues {
        try checkVersion(db, path: path)
        return try readMeta(db, path: path)
    }

    /// The application id and schema version: checked before any statement on the tables is
    /// prepared, since a file of another version has other tables.
    package static func checkVersion(_ db: Database, path: String) throws {
        let appID = try db.pragmaInteger("application_id")
        guard appID == BuildFile.applicationID else {
            throw SymbolicateError(.io, "not a symbolicate build file (application_id \(appID))", path: path)
        }
        let version = try db.pragmaInteger("user_version")
        guard version == BuildFile.schemaVersion else {
            throw BuildFile.VersionMismatch(found: version, path: path)
        }
    }

    package static func damaged(_ what: String, _ path: String) -> SymbolicateError {
        SymbolicateError(.io, "build file is damaged (\(what) do not match its header); re-import it", path: path)
    }

    package struct MetaValues {
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
}
