// `POST /v1/symbols` and the build listing: an upload (zip / tar.gz of dSYMs, .apps, .xcarchives,
// or a single Mach-O / ELF) has been streamed to a temporary file; it is imported by a child
// process (`import --store DIR --json -o REPORT FILE` of this executable) under CPU, memory and
// time limits, so a hostile file costs at most that child. The child writes its report into the
// upload's staging folder, whatever its size; the answer lists the first builds imported, those
// already present, and what failed, and counts the rest; stored reports waiting for the new UUIDs
// are then re-symbolicated. Without a readable report the upload is never answered as "nothing
// imported": the builds the child finished are in the store.

import Foundation
import Store
import SymbolicateModel

enum SymbolUploads {
    /// The answer lists at most this many builds of each kind (imported, already present) and
    /// this many failures, and counts the rest under `omitted`: an upload of a DeviceSupport
    /// folder imports thousands of libraries, and one of thousands of files without a UUID fails
    /// thousands of times, but the answer stays a few hundred kilobytes. The log lists every build.
    static let listedBuilds = 1000
    static let listedFailures = 100
    /// The import's report is read back up to this size: about 250 bytes a build or failure, so
    /// far beyond what an archive of 100,000 members (the most one may hold) makes. A larger one
    /// leaves the outcome unknown rather than the server's memory at a hostile upload's mercy.
    static let maxReportBytes = 64 << 20
    /// The child's report, beside the staged upload: `fileName` never starts with a dot, so an
    /// upload never has this name.
    static let reportName = ".import-report.json"

    static func upload(_ request: HTTPRequest, context: ServiceContext) throws -> HTTPResponse {
        guard let file = request.bodyFile, request.bodyLength > 0 else {
            throw HTTPError.badRequest("the body is empty; send a .zip or .tar.gz of dSYMs, or a Mach-O / ELF file")
        }
        try checkKind(file)
        // The store names a single binary after its file: give the upload the client's file name.
        let folder = PathParts.parent(file) + "/import-" + UUID().uuidString
        var name = fileName(request)
        if UploadName.isUnnamed(request), let fromReports = UploadName.fromReports(file, context: context) {
            name = safeFileName(fromReports)
        }
        let named = folder + "/" + name
        guard mkdir(folder, 0o700) == 0, link(file, named) == 0 else {
            throw HTTPError(500, "io", "cannot stage the upload: \(Errno.current.description)")
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let reportPath = folder + "/" + reportName
        let result: ImportRunner.Result
        do {
            result = try context.importer.run(
                ["import"] + context.configuration.storeArguments + ["--json", "-o", reportPath, named])
        } catch {
            context.metrics.recordImport(outcome: "failed")
            throw error
        }
        let summary = ChildSummary(result, reportPath: reportPath, uploadPath: folder + "/")
        guard summary.outcome == .reported else { return unreported(summary, request: request, context: context) }
        if summary.storageFailed {
            // A build that could not be stored because of the bucket: never a success, always retryable.
            context.metrics.recordImport(outcome: "failed")
            if !summary.imported.isEmpty { context.storeChanged() }
            context.log.event(
                "import_failed", ["failed": String(summary.failures.count), "token": request.tokenName ?? ""])
            let listed = summary.failures.prefix(listedFailures)
            return .json(
                [
                    "error": [
                        "code": "storage_unavailable",
                        "message": "the store's bucket did not answer or failed on its side; upload again later ("
                            + summary.message + ")",
                        "failures": Array(listed), "failures_omitted": summary.failures.count - listed.count,
                    ]
                ], status: 503, headers: [("Retry-After", String(HTTPError.retryAfterSeconds))])
        }
        if summary.imported.isEmpty && summary.present.isEmpty {
            context.metrics.recordImport(outcome: "failed")
            let message =
                summary.failures.isEmpty
                ? "no Mach-O or ELF file with symbols was found in the upload" : summary.message
            context.log.event(
                "import_failed", ["failed": String(summary.failures.count), "token": request.tokenName ?? ""])
            let listed = summary.failures.prefix(listedFailures)
            return .json(
                [
                    "error": [
                        "code": "import_failed", "message": message, "failures": Array(listed),
                        "failures_omitted": summary.failures.count - listed.count,
                    ]
                ], status: 422)
        }
        context.metrics.recordImport(outcome: "ok")
        if !summary.imported.isEmpty { context.storeChanged() }
        // Which builds arrived, and through which token (its name or fingerprint, never its value).
        func uuids(_ builds: [[String: Any]]) -> String {
            builds.compactMap { build in
                (build["uuid"] as? String).map { $0 + "/" + (build["arch"] as? String ?? "?") }
            }
            .joined(separator: ",")
        }
        context.log.event(
            "import",
            [
                "imported": String(summary.imported.count), "present": String(summary.present.count),
                "failed": String(summary.failures.count), "imported_uuids": uuids(summary.imported),
                "present_uuids": uuids(summary.present), "token": request.tokenName ?? "",
            ])
        let uuids = Set(summary.imported.compactMap { $0["uuid"] as? String })
        let resymbolicated = StoredReports.resymbolicate(uuids: uuids.sorted(), context: context).rewritten
        return .json(summary.answer(resymbolicated: resymbolicated), status: summary.imported.isEmpty ? 200 : 201)
    }

    /// An import without a report to go by: the builds it finished are in the store (each one is
    /// published whole), but which they are is not known, so the stored reports waiting for any
    /// build the store has are re-symbolicated. An import stopped by a signal, a limit or the clock
    /// is a failed upload (422, naming why); one that ended on its own but whose report cannot be
    /// read has an unknown outcome (500): never "nothing was imported".
    private static func unreported(
        _ summary: ChildSummary, request: HTTPRequest, context: ServiceContext
    ) -> HTTPResponse {
        context.storeChanged()
        var resymbolicated = 0
        do {
            let uuids = try StoredReports.waitingBuilds(context: context).map(\.uuid)
            resymbolicated = StoredReports.resymbolicate(uuids: uuids, context: context).rewritten
        } catch {
            context.log.event("resymbolicate_failed", ["error": "\(error)"])
        }
        let unknown = summary.outcome == .unknown
        context.metrics.recordImport(outcome: unknown ? "unknown" : "failed")
        context.log.event(
            unknown ? "import_outcome_unknown" : "import_failed",
            ["error": summary.message, "token": request.tokenName ?? ""])
        var error: [String: Any] = [
            "code": unknown ? "import_outcome_unknown" : "import_failed", "message": summary.message,
            "resymbolicated_reports": resymbolicated,
        ]
        if !unknown { error["failures"] = summary.failures }
        return .json(["error": error], status: unknown ? 500 : 422)
    }

    /// What the import child did, from the report it wrote (Store's versioned ImportReport), with
    /// the upload's temporary path replaced by `upload`, as the JSON objects the answer lists.
    struct ChildSummary {
        enum Outcome: Equatable {
            /// The child's report was read: the lists are what it did.
            case reported
            /// The child was stopped (a signal, a limit, the clock) before it could write a report.
            case stopped
            /// The child ended on its own, but its report is missing, too large or unreadable.
            case unknown
        }

        var outcome: Outcome
        var imported: [[String: Any]] = []
        var present: [[String: Any]] = []
        var failures: [String] = []
        /// True when a build failed because the store's bucket did not answer or failed on its side.
        var storageFailed = false
        /// One line for people: the first failure, or why there is no report.
        var message: String

        init(_ result: ImportRunner.Result, reportPath: String, uploadPath: String) {
            do {
                self = try ChildSummary(
                    report: ImportReport.read(reportPath, maxBytes: SymbolUploads.maxReportBytes),
                    uploadPath: uploadPath)
                // Killed after its report was written: the report stands, and so does the kill.
                if result.signal != nil || result.timedOut {
                    failures.append(result.failureSummary)
                    message = result.failureSummary
                }
            } catch {
                let stopped = result.signal != nil || result.timedOut || result.limitHit != nil
                outcome = stopped ? .stopped : .unknown
                message = result.failureSummary
                if stopped {
                    failures = [message]
                } else {
                    let problem = error.message.replacingOccurrences(of: uploadPath, with: "")
                    let said = result.exitStatus == 0 || result.stderr.isEmpty ? "" : " (it said: \(message))"
                    message =
                        "the import's outcome is unknown: it ended with exit status \(result.exitStatus ?? -1)\(said),"
                        + " but \(problem); the builds it imported are in the store (GET /v1/symbols/UUID), and"
                        + " uploading again is safe (builds already present are kept)"
                }
            }
        }

        init(report: ImportReport, uploadPath: String) {
            func clean(_ text: String) -> String { text.replacingOccurrences(of: uploadPath, with: "") }
            func object(_ build: ImportReport.Build) -> [String: Any] {
                [
                    "uuid": build.uuid, "arch": build.arch, "name": build.name, "kind": build.kind,
                    "source": clean(build.source), "outcome": build.outcome,
                ]
            }
            outcome = .reported
            imported = report.imported.map(object)
            present = report.alreadyPresent.map(object)
            failures = report.failed.map { "\(clean($0.path)): \($0.error)" }
            storageFailed = report.failed.contains { $0.code == SymbolicateError.Code.unavailable.description }
            message = failures.first ?? ""
        }

        /// The answer to a successful upload: the first builds and failures, and how many of each
        /// were left out.
        func answer(resymbolicated: Int) -> [String: Any] {
            let first = (
                imported: imported.prefix(listedBuilds), present: present.prefix(listedBuilds),
                failures: failures.prefix(listedFailures)
            )
            return [
                "imported": Array(first.imported), "already_present": Array(first.present),
                "failures": Array(first.failures),
                "omitted": [
                    "imported": imported.count - first.imported.count,
                    "already_present": present.count - first.present.count,
                    "failures": failures.count - first.failures.count,
                ],
                "resymbolicated_reports": resymbolicated,
            ]
        }
    }

    static func list(_ request: HTTPRequest, context: ServiceContext) throws -> HTTPResponse {
        let page = try request.wholeNumber("page", default: 1, in: 1...1_000_000)
        let perPage = try request.wholeNumber("per_page", default: 100, in: 1...1000)
        let all = try context.store.list().sorted {
            ($0.importedAt, $0.uuid, $0.arch) > ($1.importedAt, $1.uuid, $1.arch)
        }
        let start = min(all.count, (page - 1) * perPage)
        let slice = all[start..<min(all.count, start + perPage)]
        var body: [String: Any] = ["builds": slice.map(json), "page": page, "per_page": perPage, "total": all.count]
        if start + perPage < all.count { body["next_page"] = page + 1 }
        return .json(body)
    }

    static func show(_ request: HTTPRequest, context: ServiceContext) throws -> HTTPResponse {
        let uuid = try parseUUID(request.parameters["uuid"])
        let builds = try context.store.builds(matching: uuid)
        guard !builds.isEmpty else { throw HTTPError.notFound("no build with UUID \(uuid.uuidString) in the store") }
        return .json(["uuid": uuid.uuidString, "builds": builds.map(json)])
    }

    static func delete(_ request: HTTPRequest, context: ServiceContext) throws -> HTTPResponse {
        let uuid = try parseUUID(request.parameters["uuid"])
        let removed = try context.store.remove([uuid])
        guard !removed.isEmpty else { throw HTTPError.notFound("no build with UUID \(uuid.uuidString) in the store") }
        context.storeChanged()
        return .json(["removed": removed.map(json)])
    }

    // MARK: - Helpers

    static func json(_ build: StoredBuild) -> [String: Any] {
        var object: [String: Any] = [
            "uuid": build.uuid.uuidString, "arch": build.arch.rawValue, "name": build.name, "kind": build.kind.rawValue,
            "text_vmaddr": ASCII.hex(build.textVMAddress), "text_size": build.textSize,
            "imported_at": ISO8601DateFormatter().string(from: build.importedAt), "bytes": build.byteSize,
            "status": build.status.rawValue,
            "source": PathParts.last(build.sourcePath) ?? "",
        ]
        if let used = build.lastUsedAt { object["last_used_at"] = ISO8601DateFormatter().string(from: used) }
        if let origin = build.origin {
            var cache: [String: Any] = ["uuid": origin.dyldCacheUUID, "image_path": origin.imagePath]
            if let os = origin.osVersion { cache["os_version"] = os }
            object["dyld_cache"] = cache
        }
        return object
    }

    static func parseUUID(_ text: String?) throws -> BuildID {
        guard let text, let uuid = BuildID(string: text) else {
            throw HTTPError.badRequest("'\(text ?? "")' is not a UUID or build id (hex digits, dashes optional)")
        }
        return uuid
    }

    /// The upload's file name: `?filename=`, the form's file name (`-F file=@NAME`) or
    /// Content-Disposition's `filename`, reduced to a safe single path component; `upload` when none is given.
    static func fileName(_ request: HTTPRequest) -> String {
        var candidate = request.query["filename"] ?? request.formFileName ?? ""
        if candidate.isEmpty, let disposition = request.header("content-disposition"),
            let range = disposition.range(of: "filename=")
        {
            candidate = String(disposition[range.upperBound...].split(separator: ";").first ?? "")
                .trimmingCharacters(in: " \"")
        }
        return safeFileName(candidate)
    }

    /// A client's file name reduced to a safe single path component; `upload` when nothing is left.
    static func safeFileName(_ candidate: String) -> String {
        let last = PathParts.split(candidate, backslash: true).last ?? ""
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-@ ")
        let safe = String(last.filter { allowed.contains($0) }.prefix(200))
        return safe.isEmpty || safe.hasPrefix(".") ? "upload" : safe
    }

    /// Refuses bodies that are neither an archive nor an object file before spending a process on them.
    static func checkKind(_ path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw HTTPError(500, "io", "the upload could not be read back")
        }
        let head = [UInt8](handle.readData(ofLength: ContentKind.prefixLength))
        try? handle.close()
        if ContentKind.sniff(head) != nil { return }
        throw HTTPError(
            415, "unsupported_media",
            "the body is not a .zip, .tar(.gz/.bz2/.xz/.zst), Mach-O or ELF file")
    }
}
