// `GET /v1/symbols/{uuid}/file[?kind=debuginfo|executable]`: hands back a build's kept original
// (import or serve `--keep-originals`) byte for byte, as it was imported; a dSYM bundle's original
// is its DWARF file. Without `kind` the debug file is preferred, then the executable. The file
// is sent from disk, never read into memory: a folder store's blob itself (blobs never change
// once named), a bucket store's blob downloaded to a temporary file first, which goes away once
// the response has it open. A record whose blob is missing is a 404 that says so.

import Foundation
import Store
import SymbolicateModel
import SystemSupport

enum OriginalDownloads {
    static func file(_ request: HTTPRequest, context: ServiceContext) throws -> HTTPResponse {
        let uuid = try SymbolUploads.parseUUID(request.parameters["uuid"])
        var kinds = OriginalKind.allCases
        if let text = request.query["kind"] {
            guard let kind = OriginalKind(rawValue: text) else {
                throw HTTPError.badRequest("kind must be debuginfo or executable, not '\(text.prefix(64))'")
            }
            kinds = [kind]
        }
        guard let originals = Originals.of(context.store) else {
            throw HTTPError.notFound("this store keeps no original files")
        }
        for kind in kinds {
            guard let entry = try originals.entry(uuid, kind) else { continue }
            return try response(entry, originals: originals, context: context)
        }
        let what = kinds.count == 1 ? "\(kinds[0].rawValue) file" : "original file"
        throw HTTPError.notFound(
            "no \(what) of \(uuid.uuidString) is kept: import it with --keep-originals (serve --keep-originals for uploads)"
        )
    }

    /// The response carrying `entry`'s blob; `headers` are added to the usual ones.
    static func response(
        _ entry: OriginalEntry, originals: Originals, context: ServiceContext, headers: [(String, String)] = []
    ) throws -> HTTPResponse {
        let missing = HTTPError.notFound(
            "the original \(entry.name) of \(entry.buildID.uuidString) is indexed but its file \(entry.blob) is"
                + " not stored: import it again with --keep-originals (symbolicate verify lists these)")
        var response = HTTPResponse(
            headers: [
                ("Content-Type", "application/octet-stream"),
                ("Content-Disposition", "attachment; filename=\"\(safeFileName(entry.name))\""),
            ] + headers)
        if let folder = originals.blobs.backend as? FolderBlobBackend {
            let path = folder.root + "/" + entry.blob.path
            guard let size = try folder.size(entry.blob.path) else { throw missing }
            response.bodyFile = path
            response.bodyFileSize = size
            return response
        }
        let directory = context.configuration.uploadDirectory
        try Folders.create(directory, what: "temporary folder")
        let temporary = directory + "/.original-\(UInt64.random(in: 0...UInt64.max))"
        guard try originals.blobs.backend.download(entry.blob.path, to: temporary) else { throw missing }
        var status = stat()
        guard stat(temporary, &status) == 0 else {
            unlink(temporary)
            throw HTTPError(500, "internal", "the downloaded original \(entry.blob) vanished")
        }
        response.bodyFile = temporary
        response.bodyFileSize = Int64(status.st_size)
        response.bodyFileIsTemporary = true
        return response
    }

    /// `name` fit for a quoted Content-Disposition file name: printable ASCII without quotes or
    /// backslashes.
    static func safeFileName(_ name: String) -> String {
        let kept = name.unicodeScalars.map { s -> Character in
            s.value >= 0x20 && s.value < 0x7F && s != "\"" && s != "\\" ? Character(s) : "_"
        }
        return kept.isEmpty ? "original" : String(kept)
    }
}
