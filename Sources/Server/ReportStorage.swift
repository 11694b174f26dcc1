// ReportStorage: where `POST /v1/reports` keeps reports, and the "waiting for UUID" marks that
// let an upload find the reports to re-symbolicate. Two places implement it: ReportDatabase
// (`reports.sqlite` in the store folder, the embedded default) and BucketReports (objects in the
// bucket of `--store s3://BUCKET/PREFIX`, shared by every replica). The routes and the
// re-symbolication in StoredReports only speak this protocol.
//
// Writes after the first are compare-and-swap: `replace` succeeds only while the stored report is
// still at the revision it was read at, so two writers never lose each other's update; see
// StoredReports.resymbolicate for why the retry it implies always converges.

import Foundation
import ObjectStorage
import SymbolicateModel

/// One stored report: the bytes posted, the latest symbolicated output, and what it still misses.
struct StoredReport: Sendable, Equatable {
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
    /// UUIDs (uppercase with dashes) of images without symbols, sorted.
    var missing: [String]
    /// The image name of each missing UUID, for `GET /v1/missing`.
    var missingNames: [String: String]
    /// The dyld shared cache (`21F79 arm64e`) that holds each missing system image, for
    /// `GET /v1/missing`; absent for images that are not the system's.
    var missingCaches: [String: String] = [:]
    /// What a listing shows of the report, written when it is stored (nil for reports stored
    /// before listings carried it).
    var facts: ListingFacts? = nil
    /// Where the stored copy stood when it was read (a row revision, an ETag); nil for a report
    /// not stored yet. `replace` compares it.
    var revision: String? = nil
}

/// What `GET /v1/reports` lists about one report: cheap to get from every backend.
struct ReportListing: Sendable, Equatable {
    var id: String
    /// When the report was stored or last re-symbolicated (seconds since 1970).
    var updatedAt: Double
    /// What tells the report apart, where the backend keeps it in its listing.
    var facts: ListingFacts? = nil
    var missingCount: Int? = nil
}

/// What tells one stored report from another in a listing: the app and version, the OS, the
/// exception type, the crashed thread's first function and the crash group (CrashSignature).
struct ListingFacts: Sendable, Equatable, Codable {
    var app: String
    var version: String?
    var os: String?
    var exceptionType: String
    var crashedFunction: String?
    var groupID: String?
}

/// Which stored reports a listing wants: waiting for a UUID, of an app, of a version.
struct ReportFilter: Sendable, Equatable {
    var missing: String? = nil
    var app: String? = nil
    var version: String? = nil
}

/// One UUID stored reports are waiting for.
struct MissingEntry: Sendable, Equatable {
    var uuid: String
    var name: String
    var reports: Int
    /// For a system image: the dyld shared cache that holds it (`21F79 arm64e`).
    var cache: String? = nil
}

enum ReplaceOutcome: Sendable, Equatable {
    case replaced
    /// Someone else wrote the report since it was read: read it again.
    case conflict
    /// The report was deleted meanwhile; it is not written back.
    case gone
}

protocol ReportStorage: AnyObject, Sendable {
    /// `reports.sqlite at PATH`, `s3://BUCKET/PREFIX/reports/`: for logs and errors.
    var description: String { get }

    /// Stores `report` under its id unless a report with that id exists already. Answers the report
    /// that is stored afterwards and whether this call created it. Durable before it returns.
    func create(_ report: StoredReport) throws -> (stored: StoredReport, created: Bool)

    /// The report with `id` and its revision, or nil.
    func report(id: String) throws -> StoredReport?

    /// Writes `new` over the stored report when that is still at `old.revision`. Callers keep
    /// `new.missing` a subset of `old.missing` (StoredReports.resymbolicate says why).
    func replace(_ old: StoredReport, with new: StoredReport) throws -> ReplaceOutcome

    /// Removes the report and its marks; false when there was none.
    func delete(id: String) throws -> Bool

    /// Up to `limit` reports, most recently stored or re-symbolicated first; with `missing`, only
    /// those waiting for that UUID.
    func list(limit: Int, missing: String?) throws -> [ReportListing]

    /// Up to `limit` reports `filter` selects, most recent first.
    func list(limit: Int, filter: ReportFilter) throws -> [ReportListing]

    /// Every UUID some report is waiting for.
    func waitingUUIDs() throws -> [String]

    /// Ids of the reports waiting for `uuid`.
    func reportsMissing(_ uuid: String) throws -> [String]

    /// The UUIDs most reports wait for, with how many and the image's name.
    func missingSummary(limit: Int) throws -> [MissingEntry]

    /// How many reports are stored, or nil where counting costs more than a scrape should (a bucket).
    func count() throws -> Int?

    /// Throws when the storage does not answer (for `/readyz`).
    func checkReachable() throws

    /// Removes reports not written since `cutoff` (seconds since 1970) and marks left behind by
    /// writes that died; answers the ids removed (or, with `dryRun`, that would be).
    func removeExpired(before cutoff: Double, dryRun: Bool) throws -> [String]
}

/// Where stored reports live, as `--store` names it: a folder (its `reports.sqlite`) or a bucket.
public enum ReportStorageLocation: Sendable, CustomStringConvertible {
    case folder(String)
    case bucket(S3Location)

    /// `s3://BUCKET[/PREFIX]` is a bucket; anything else is a store folder.
    public init(parsing text: String) throws {
        if S3Location.isBucketLocation(text) {
            do throws(ObjectStorageError) {
                self = .bucket(try S3Location(parsing: text))
            } catch {
                throw SymbolicateError(.badInput, error.description)
            }
        } else {
            self = .folder(text)
        }
    }

    public var description: String {
        switch self {
        case .folder(let directory): return directory
        case .bucket(let location): return location.description
        }
    }

    /// Opens the storage. A folder's database is created when missing unless `mustExist`, which
    /// answers nil for a folder with no `reports.sqlite` (nothing was ever stored there).
    func open(s3: S3Configuration?, mustExist: Bool = false) throws -> (any ReportStorage)? {
        switch self {
        case .folder(let directory):
            let path = directory + "/" + ReportDatabase.fileName
            if mustExist, !FileManager.default.fileExists(atPath: path) { return nil }
            return try ReportDatabase(path: path)
        case .bucket(let location):
            var configuration = s3
            if configuration == nil {
                do throws(ObjectStorageError) {
                    configuration = try S3Configuration.fromEnvironment()
                } catch {
                    throw SymbolicateError(.badInput, error.description)
                }
            }
            guard let configuration else { return nil }
            return try BucketReports(location: location, configuration: configuration)
        }
    }
}

/// Stored-report maintenance for `symbolicate gc`: the same expiry `serve` applies.
public enum StoredReportRetention {
    /// Days a report is kept after it was last written, unless told otherwise.
    public static let defaultDays = 90

    /// Removes the reports at `location` not written for `days` days; answers their ids. A folder
    /// that never held stored reports has none to remove.
    public static func removeExpired(
        at location: ReportStorageLocation, days: Int, dryRun: Bool, s3: S3Configuration? = nil
    ) throws -> [String] {
        guard days > 0, let storage = try location.open(s3: s3, mustExist: true) else { return [] }
        return try storage.removeExpired(before: cutoff(days: days), dryRun: dryRun)
    }

    static func cutoff(days: Int, now: Double = Date().timeIntervalSince1970) -> Double {
        now - Double(days) * 86_400
    }
}

/// Copies stored reports from one place to another, for moving a folder store's reports into a
/// bucket (`symbolicate sync`). Resumable: a report already at the destination is left as it is.
public enum StoredReportCopy {
    public struct Summary: Sendable, Equatable {
        public var copied = 0
        /// Already at the destination (an earlier, interrupted run copied them).
        public var present = 0
    }

    /// Copies every report at `source` to `destination`; a source folder without reports.sqlite
    /// has none. `progress` is told each report id as it is done.
    public static func copy(
        from source: ReportStorageLocation, to destination: ReportStorageLocation, s3: S3Configuration? = nil,
        progress: (String) -> Void = { _ in }
    ) throws -> Summary {
        var summary = Summary()
        guard let from = try source.open(s3: s3, mustExist: true) else { return summary }
        guard let to = try destination.open(s3: s3) else { return summary }
        for listing in try from.list(limit: Int(Int32.max), missing: nil).reversed() {
            guard var report = try from.report(id: listing.id) else { continue }
            report.revision = nil
            if try to.create(report).created { summary.copied += 1 } else { summary.present += 1 }
            progress(listing.id)
        }
        return summary
    }
}
