// debuginfod, served from the kept originals (elfutils' protocol, which gdb, lldb, perf and
// systemd-coredump speak): `GET /buildid/BUILDID/debuginfo` and `/executable` answer the original
// of that kind, `/section/NAME` the bytes of one ELF section from the debug file (else the
// executable), and `/source/PATH` is always a 404, as no sources are kept. Build ids are lowercase
// hex, as the protocol writes them; answers carry `X-DEBUGINFOD-SIZE` and `X-DEBUGINFOD-FILE`.
// Read tokens apply as on every read route (clients send them with DEBUGINFOD_HEADERS_FILE).
// Bad requests (a build id that is not lowercase hex or is longer than any build id, a section
// name with path characters) are a 400 that says what is wrong.

import Foundation
import ObjectFiles
import Store
import SymbolicateModel
import SystemSupport

enum Debuginfod {
    /// Hex digits of the longest build id accepted (64 bytes, as BuildID allows).
    static let maxBuildIDDigits = 128
    /// The largest section sent (it is read into memory, unlike whole files).
    static let maxSectionBytes = 256 << 20

    static func routes(context: ServiceContext) -> [Route] {
        [
            Route("GET", "/buildid/{id}/debuginfo", offloaded: true) { request in
                try file(request, kind: .debuginfo, context: context)
            },
            Route("GET", "/buildid/{id}/executable", offloaded: true) { request in
                try file(request, kind: .executable, context: context)
            },
            Route("GET", "/buildid/{id}/section/{name}", offloaded: true) { request in
                try section(request, context: context)
            },
            Route("GET", "/buildid/{id}/source/{path}") { request in
                _ = try buildID(request.parameters["id"])
                throw HTTPError.notFound("this server keeps no source files")
            },
        ]
    }

    /// The build id of the path: lowercase hex, an even number of digits, at most 128.
    static func buildID(_ text: String?) throws -> BuildID {
        let text = text ?? ""
        guard text.utf8.count <= maxBuildIDDigits else {
            throw HTTPError.badRequest(
                "a build id has at most \(maxBuildIDDigits) hex digits; this one has \(text.utf8.count)")
        }
        guard !text.isEmpty, text.utf8.count % 2 == 0,
            text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }),
            let id = BuildID(string: text)
        else {
            throw HTTPError.badRequest(
                "'\(text.prefix(maxBuildIDDigits))' is not a build id: an even number of lowercase hex digits")
        }
        return id
    }

    static func originals(_ context: ServiceContext) throws -> Originals {
        guard let originals = Originals.of(context.store) else {
            throw HTTPError.notFound("this store keeps no original files")
        }
        return originals
    }

    static func file(_ request: HTTPRequest, kind: OriginalKind, context: ServiceContext) throws -> HTTPResponse {
        let id = try buildID(request.parameters["id"])
        let originals = try originals(context)
        guard let entry = try originals.entry(id, kind) else {
            throw HTTPError.notFound("no \(kind.rawValue) file of build id \(id.compactString) is kept")
        }
        return try OriginalDownloads.response(
            entry, originals: originals, context: context,
            headers: [("X-DEBUGINFOD-SIZE", String(entry.size)), ("X-DEBUGINFOD-FILE", entry.name)])
    }

    /// Section names are ELF names (`.debug_info`, `.gnu_debugdata`): letters, digits, `.`, `_`,
    /// `-`; nothing that could be a path.
    static func isSectionName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && name != "." && name != ".."
            && name.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2E
                    || $0 == 0x5F || $0 == 0x2D
            }
    }

    static func section(_ request: HTTPRequest, context: ServiceContext) throws -> HTTPResponse {
        let id = try buildID(request.parameters["id"])
        let name = request.parameters["name"] ?? ""
        guard isSectionName(name) else {
            throw HTTPError.badRequest(
                "'\(name.prefix(64))' is not a section name: letters, digits, '.', '_' and '-' only")
        }
        let originals = try originals(context)
        for kind in OriginalKind.allCases {
            guard let entry = try originals.entry(id, kind) else { continue }
            let bytes = try withLocalFile(entry, originals: originals, context: context) { path in
                try ELFSectionReader.contents(of: name, inFileAt: path, maxBytes: maxSectionBytes)
            }
            guard let bytes else { continue }
            return HTTPResponse(
                contentType: "application/octet-stream", body: bytes,
                headers: [("X-DEBUGINFOD-SIZE", String(bytes.count)), ("X-DEBUGINFOD-FILE", entry.name)])
        }
        throw HTTPError.notFound("no kept file of build id \(id.compactString) has a section \(name)")
    }

    /// Runs `body` on a local path of `entry`'s blob: the blob itself in a folder store, a
    /// temporary download from a bucket.
    static func withLocalFile<T>(
        _ entry: OriginalEntry, originals: Originals, context: ServiceContext, _ body: (String) throws -> T
    ) throws -> T {
        let missing = HTTPError.notFound(
            "build id \(entry.buildID.compactString) is indexed but its file \(entry.blob) is not stored")
        if let folder = originals.blobs.backend as? FolderBlobBackend {
            guard try folder.size(entry.blob.path) != nil else { throw missing }
            return try body(folder.root + "/" + entry.blob.path)
        }
        let directory = context.configuration.uploadDirectory
        try Folders.create(directory, what: "temporary folder")
        let temporary = directory + "/.original-\(UInt64.random(in: 0...UInt64.max))"
        defer { unlink(temporary) }
        guard try originals.blobs.backend.download(entry.blob.path, to: temporary) else { throw missing }
        return try body(temporary)
    }
}
