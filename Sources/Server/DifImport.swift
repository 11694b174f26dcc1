// One assembly of a chunked upload: the file's chunks are read from the blob store in order and
// written to a staged file under the upload folder (the file's SHA-1 computed on the way and
// checked against the name it was announced by), its kind is read from its first bytes, and a
// Mach-O or ELF file goes to the import child, as `POST /v1/symbols` sends its uploads. Nothing
// is imported from a file whose chunks are missing or do not add up to it; the staged file goes
// when the assembly ends, whatever the outcome.

import Digest
import Foundation
import Store
import SymbolicateModel
import SystemSupport

struct DifImport {
    let context: ServiceContext
    let blobs: BlobStore
    let file: DifAssembly.FileRequest
    let token: String?

    func run() throws -> AssemblyRecord {
        let folder = context.configuration.uploadDirectory + "/assemble-" + UUID().uuidString
        guard mkdir(folder, 0o700) == 0 else {
            throw HTTPError(500, "io", "cannot stage the assembly: \(Errno.current.description)")
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let staged = folder + "/" + SymbolUploads.safeFileName(file.name)
        let head = try join(into: staged)
        guard let kind = ContentKind.sniff(head) else {
            return AssemblyRecord(
                detail: "ignored: \(Self.describe(head, name: file.name)) is not a debug file this server takes")
        }
        if kind.isArchive {
            if file.name.hasSuffix(".src.zip") {
                return AssemblyRecord(detail: "ignored: \(file.name) is a source bundle; this server takes no sources")
            }
            throw HTTPError(
                422, "unsupported",
                "\(file.name) is an archive (\(kind)); archives are not expanded from chunks: upload the files inside it"
            )
        }
        return try importFile(staged, elf: kind == .elf, folder: folder)
    }

    /// Writes the chunks to `path`, checking sizes and the whole file's SHA-1; answers its first bytes.
    private func join(into path: String) throws -> [UInt8] {
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw HTTPError(500, "io", "cannot create the assembled file: \(Errno.current.description)")
        }
        defer { close(descriptor) }
        var hash = SHA1()
        var head: [UInt8] = []
        var total = 0
        for chunk in file.chunks {
            guard let bytes = try blobs.get(chunk, maxBytes: ChunkUploads.chunkSize) else {
                throw HTTPError(
                    409, "missing_chunk", "chunk \(chunk.digest) of \(file.name) is no longer stored: upload again")
            }
            total += bytes.count
            guard total <= context.configuration.maxBody else {
                throw HTTPError(413, "too_large", "\(file.name) is larger than \(context.configuration.maxBody) bytes")
            }
            hash.update(bytes)
            if head.count < ContentKind.prefixLength { head += bytes.prefix(ContentKind.prefixLength - head.count) }
            let code = bytes.withUnsafeBytes { OutputFile.writeAll(descriptor, $0) }
            guard code == 0 else {
                throw HTTPError(500, "io", "cannot write the assembled file: \(Errno(rawValue: code).description)")
            }
        }
        let digest = hexString(hash.finalize())
        guard digest == file.checksum else {
            throw HTTPError(
                400, "checksum_mismatch",
                "the chunks of \(file.name) make a file whose SHA-1 is \(digest), not \(file.checksum); nothing was imported"
            )
        }
        return head
    }

    /// Runs the import child on the staged file and makes the record of what it did.
    private func importFile(_ path: String, elf: Bool, folder: String) throws -> AssemblyRecord {
        let reportPath = folder + "/" + SymbolUploads.reportName
        let result = try context.importer.run(
            ["import"] + context.configuration.storeArguments + ["--json", "-o", reportPath, path])
        let report: ImportReport
        do {
            report = try ImportReport.read(reportPath, maxBytes: SymbolUploads.maxReportBytes)
        } catch {
            context.metrics.recordImport(outcome: "failed")
            throw HTTPError(422, "import_failed", "\(file.name): \(result.failureSummary)")
        }
        let builds = report.imported + report.alreadyPresent
        guard !builds.isEmpty else {
            context.metrics.recordImport(outcome: "failed")
            let reason = report.failed.first.map { $0.error } ?? "no Mach-O or ELF file with symbols was found"
            throw HTTPError(422, "import_failed", "\(file.name): \(reason)")
        }
        context.metrics.recordImport(outcome: "ok")
        func uuids(_ list: [ImportReport.Build]) -> String {
            list.map { $0.uuid + "/" + $0.arch }.joined(separator: ",")
        }
        context.log.event(
            "import",
            [
                "imported": String(report.imported.count), "present": String(report.alreadyPresent.count),
                "failed": String(report.failed.count), "imported_uuids": uuids(report.imported),
                "present_uuids": uuids(report.alreadyPresent), "token": token ?? "", "via": "assemble",
            ])
        if !report.imported.isEmpty {
            context.storeChanged()
            _ = StoredReports.resymbolicate(uuids: Set(report.imported.map(\.uuid)).sorted(), context: context)
        }
        let wanted = file.debugID?.lowercased()
        func debugID(_ build: ImportReport.Build) -> String? {
            BuildID(string: build.uuid).map { AssemblyRecord.debugID($0, elf: elf) }
        }
        let chosen = builds.first { wanted != nil && debugID($0) == wanted } ?? builds[0]
        let debugInfo = chosen.kind == SymbolKind.debugInfo.rawValue
        let dif = AssemblyRecord.Dif(
            debugID: debugID(chosen) ?? chosen.uuid.lowercased(), objectName: chosen.name, cpuName: chosen.arch,
            kind: debugInfo ? "dbg" : "exe", features: debugInfo ? ["debug", "symtab"] : ["symtab"])
        return AssemblyRecord(builds: builds.map { .init(uuid: $0.uuid, arch: $0.arch) }, dif: dif)
    }

    /// What a file we do not take looks like, for the detail.
    static func describe(_ head: [UInt8], name: String) -> String {
        let text = String(decoding: head.prefix(64), as: UTF8.self)
        if text.hasPrefix("BCSymbolMap") { return "\(name) (a BCSymbolMap)" }
        if text.hasPrefix("bplist") || text.contains("<plist") || text.hasPrefix("<?xml") {
            return "\(name) (a property list)"
        }
        return "\(name) (neither Mach-O nor ELF)"
    }
}
