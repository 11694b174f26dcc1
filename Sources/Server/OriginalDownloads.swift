// `GET /v1/symbols/{uuid}/file[?kind=debuginfo|executable]`: hands back a build's kept original
// (import or serve `--keep-originals`) byte for byte, as it was imported; a dSYM bundle's original
// is its DWARF file. Without `kind` the debug file is preferred, then the executable. With
// `?format=dsym`, a Mach-O debug file comes back as a zip of a dSYM bundle around it
// (`NAME.dSYM/Contents/Info.plist` as dsymutil writes it, `Contents/Resources/DWARF/NAME`), which
// Xcode, lldb and symbolicatecrash find by their usual search. The file
// is sent from disk, never read into memory: a folder store's blob itself (blobs never change
// once named), a bucket store's blob downloaded to a temporary file first, which goes away once
// the response has it open. A record whose blob is missing is a 404 that says so.

import Archives
import Foundation
import Store
import SymbolicateModel
import SystemSupport

enum OriginalDownloads {
    static func file(_ request: HTTPRequest, context: ServiceContext) throws -> HTTPResponse {
        let uuid = try SymbolUploads.parseUUID(request.parameters["uuid"])
        var kinds = OriginalKind.allCases
        let bundle: Bool
        switch request.query["format"] {
        case nil, "file": bundle = false
        case "dsym": bundle = true
        case let other?: throw HTTPError.badRequest("format must be file or dsym, not '\(other.prefix(64))'")
        }
        if let text = request.query["kind"] {
            guard let kind = OriginalKind(rawValue: text) else {
                throw HTTPError.badRequest("kind must be debuginfo or executable, not '\(text.prefix(64))'")
            }
            kinds = [kind]
        }
        guard let originals = Originals.of(context.store) else {
            throw HTTPError.notFound("this store keeps no original files")
        }
        if bundle { kinds = kinds.filter { $0 == .debuginfo } }
        for kind in kinds {
            guard let entry = try originals.entry(uuid, kind) else { continue }
            let file = try response(entry, originals: originals, context: context)
            return bundle ? try dSYMBundle(entry, file: file, context: context) : file
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

    /// A zip of a dSYM bundle around `file` (the response carrying the debug file): refused for a
    /// file that is not Mach-O (an ELF debug file has no bundle).
    static func dSYMBundle(_ entry: OriginalEntry, file: HTTPResponse, context: ServiceContext) throws -> HTTPResponse {
        guard let path = file.bodyFile else { throw HTTPError(500, "internal", "the original is not a file") }
        defer { if file.bodyFileIsTemporary { unlink(path) } }
        let handle = FileHandle(forReadingAtPath: path)
        let head = (try? handle?.read(upToCount: 4)).flatMap { $0 }.map { [UInt8]($0) } ?? []
        try? handle?.close()
        guard [[0xCF, 0xFA, 0xED, 0xFE], [0xCE, 0xFA, 0xED, 0xFE], [0xCA, 0xFE, 0xBA, 0xBE]].contains(head)
        else {
            throw HTTPError(
                422, "not_mach_o",
                "the debug file of \(entry.buildID.uuidString) is not a Mach-O file, so it has no dSYM bundle:"
                    + " ask without format=dsym for the file itself")
        }
        let name = safeFileName(entry.name).replacingOccurrences(of: "/", with: "_")
        let zip = context.configuration.uploadDirectory + "/.dsym-\(UInt64.random(in: 0...UInt64.max)).zip"
        let fd = open(zip, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SymbolicateError.system("cannot create the bundle's zip", path: zip) }
        do {
            defer { close(fd) }
            var writer = try ArchiveWriter(destination: zip, fileDescriptor: fd)
            try writer.add(path: "\(name).dSYM/Contents/Info.plist", bytes: Array(infoPlist(name).utf8))
            try writer.add(path: "\(name).dSYM/Contents/Resources/DWARF/\(name)", file: path)
            try writer.finish()
        } catch {
            unlink(zip)
            throw error
        }
        var status = stat()
        guard stat(zip, &status) == 0 else { throw SymbolicateError.system("cannot read the bundle's zip", path: zip) }
        var response = HTTPResponse(
            headers: [
                ("Content-Type", "application/zip"),
                ("Content-Disposition", "attachment; filename=\"\(name).dSYM.zip\""),
            ])
        response.bodyFile = zip
        response.bodyFileSize = Int64(status.st_size)
        response.bodyFileIsTemporary = true
        return response
    }

    /// The Info.plist dsymutil writes into a dSYM bundle.
    static func infoPlist(_ name: String) -> String {
        let escaped = name.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            \t<dict>
            \t\t<key>CFBundleDevelopmentRegion</key>
            \t\t<string>English</string>
            \t\t<key>CFBundleIdentifier</key>
            \t\t<string>com.apple.xcode.dsym.\(escaped)</string>
            \t\t<key>CFBundleInfoDictionaryVersion</key>
            \t\t<string>6.0</string>
            \t\t<key>CFBundlePackageType</key>
            \t\t<string>dSYM</string>
            \t\t<key>CFBundleSignature</key>
            \t\t<string>????</string>
            \t\t<key>CFBundleShortVersionString</key>
            \t\t<string>1.0</string>
            \t\t<key>CFBundleVersion</key>
            \t\t<string>1</string>
            \t</dict>
            </plist>

            """
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
