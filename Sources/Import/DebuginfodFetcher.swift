// DebuginfodFetcher: builds missing from the store fetched by build id from debuginfod servers
// (elfutils' protocol: `GET URL/buildid/HEX/debuginfo`, else `/executable`), as gdb and lldb fetch
// them. What arrives is downloaded to a private temporary folder (never into memory), and is
// imported only when it is an object file holding the very build id asked for: an error page, an
// HTML answer, a file of another build and a server too slow to answer are refused, named in the
// notes and never imported. An imported file's original is kept when the store is set to keep
// them. Each id is asked once at a time, and an id no server had is not asked again for
// `missRetention` seconds, so a report of 50 frames in one missing image asks once.

import Foundation
import ObjectFiles
import ObjectStorage
import Store
import SymbolicateModel

/// Where and how builds are fetched, as elfutils' client reads its settings.
public struct DebuginfodSettings: Sendable, Equatable {
    /// Server URLs, asked in order.
    public var urls: [String]
    /// Seconds to connect and to wait for data before a server is skipped (`DEBUGINFOD_TIMEOUT`).
    public var timeoutSeconds: Int = 90
    /// Seconds a whole download may take (`DEBUGINFOD_MAXTIME`).
    public var maxSeconds: Int = 900
    /// Headers sent with every request (`DEBUGINFOD_HEADERS_FILE`, lines of `Name: value`).
    public var headers: [(String, String)] = []
    /// Seconds an id that no server had is not asked for again.
    public var missRetention: Double = 600
    /// Keep each imported file as the build's original.
    public var keepOriginals = false

    public init(urls: [String]) { self.urls = urls }

    /// The settings `--debuginfod` URLs or else `DEBUGINFOD_URLS` (space-separated) give; nil
    /// when neither names a server.
    /// The variables `from(urls:environment:)` reads, as elfutils' client does.
    public static let environmentVariables = [
        "DEBUGINFOD_URLS", "DEBUGINFOD_TIMEOUT", "DEBUGINFOD_MAXTIME", "DEBUGINFOD_HEADERS_FILE",
    ]

    public static func from(urls given: [String], environment: [String: String]) throws -> DebuginfodSettings? {
        var urls = given
        if urls.isEmpty {
            urls = (environment["DEBUGINFOD_URLS"] ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
        }
        guard !urls.isEmpty else { return nil }
        for url in urls where !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
            throw SymbolicateError(.badInput, "debuginfod server '\(url)' is not an http:// or https:// URL")
        }
        var settings = DebuginfodSettings(urls: urls.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 })
        if let text = environment["DEBUGINFOD_TIMEOUT"], let seconds = Int(text), seconds > 0 {
            settings.timeoutSeconds = seconds
        }
        if let text = environment["DEBUGINFOD_MAXTIME"], let seconds = Int(text), seconds > 0 {
            settings.maxSeconds = seconds
        }
        if let file = environment["DEBUGINFOD_HEADERS_FILE"], !file.isEmpty {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw SymbolicateError(.notFound, "DEBUGINFOD_HEADERS_FILE cannot be read", path: file)
            }
            for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let name = line[..<colon].trimmingCharacters(in: .whitespaces)
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                if !name.isEmpty { settings.headers.append((name, value)) }
            }
        }
        return settings
    }

    public static func == (a: DebuginfodSettings, b: DebuginfodSettings) -> Bool {
        a.urls == b.urls && a.timeoutSeconds == b.timeoutSeconds && a.maxSeconds == b.maxSeconds
            && a.headers.map { "\($0.0): \($0.1)" } == b.headers.map { "\($0.0): \($0.1)" }
            && a.missRetention == b.missRetention && a.keepOriginals == b.keepOriginals
    }
}

public final class DebuginfodFetcher: Sendable {
    public let settings: DebuginfodSettings
    private let store: any SymbolStoring
    private let client: WebClient
    private let state = Locked<State>(State())
    private let done = Locked<State>.Condition()
    static let maxNotes = 100

    private struct State {
        /// Ids no server had, with the uptime (ns) until which they are not asked again.
        var misses: [BuildID: UInt64] = [:]
        var inFlight: Set<BuildID> = []
        /// Ids imported from a server: in the store now, never asked again.
        var fetched: Set<BuildID> = []
        var notes: [String] = []
        var requests = 0
    }

    public init(settings: DebuginfodSettings, store: any SymbolStoring) throws(ObjectStorageError) {
        self.settings = settings
        self.store = store
        let timeout = settings.timeoutSeconds
        client = try WebClient(
            timeouts: TransportTimeouts(
                connectSeconds: Double(timeout), totalSeconds: Double(settings.maxSeconds), lowSpeedBytesPerSecond: 1,
                lowSpeedSeconds: timeout))
    }

    /// What went wrong with the servers so far (a refused file, a server that did not answer).
    public var notes: [String] { state.withLock { $0.notes } }
    /// How many requests were sent to the servers.
    public var requestCount: Int { state.withLock { $0.requests } }

    /// Fetches and imports the build `id`; true when the store now holds it.
    public func fetch(_ id: BuildID) -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        let known: Bool? = state.wait(
            on: done, until: { !$0.inFlight.contains(id) },
            then: { state in
                if state.fetched.contains(id) { return true }
                if let until = state.misses[id], now < until { return false }
                state.inFlight.insert(id)
                return nil
            })
        if let known { return known }
        var found = false
        var notes: [String] = []
        servers: for server in settings.urls {
            for kind in OriginalKind.allCases {
                switch fetch(id, kind: kind, from: server) {
                case .imported:
                    found = true
                    break servers
                case .absent:
                    continue
                case .refused(let reason):
                    // A server that failed or sent a wrong file is not asked for the other kind.
                    notes.append("debuginfod \(server): build \(id.compactString) \(kind.rawValue): \(reason)")
                    continue servers
                }
            }
        }
        state.withLock { state in
            state.inFlight.remove(id)
            if found {
                if state.fetched.count >= 10_000 { state.fetched.removeAll(keepingCapacity: true) }
                state.fetched.insert(id)
            } else {
                if state.misses.count >= 10_000 { state.misses.removeAll(keepingCapacity: true) }
                state.misses[id] = DispatchTime.now().uptimeNanoseconds + UInt64(settings.missRetention * 1e9)
            }
            state.notes.append(contentsOf: notes.prefix(max(0, Self.maxNotes - state.notes.count)))
        }
        done.broadcast()
        return found
    }

    enum Answer: Equatable {
        case imported
        case absent
        case refused(String)
    }

    /// One request to one server: the file downloaded, checked and imported.
    func fetch(_ id: BuildID, kind: OriginalKind, from server: String) -> Answer {
        state.withLock { $0.requests += 1 }
        // mkdtemp(3) replaces the trailing X's with a name no other folder has.
        let template = (NSTemporaryDirectory() as NSString).appendingPathComponent("symbolicate-debuginfod-XXXXXX")
        var chars = Array(template.utf8CString)
        guard let made = mkdtemp(&chars) else { return .refused("cannot make a temporary folder: \(Errno.current)") }
        let folder = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let download = folder + "/download"
        let fd = open(download, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return .refused("cannot write \(download): \(Errno.current)") }
        let response: WebResponse
        do {
            defer { close(fd) }
            response = try client.download(
                "\(server)/buildid/\(id.compactString)/\(kind.rawValue)", to: fd, headers: settings.headers)
        } catch {
            if error.code == .timeout {
                return .refused("no answer within \(settings.timeoutSeconds) s (DEBUGINFOD_TIMEOUT)")
            }
            return .refused(error.message)
        }
        if response.status == 404 { return .absent }
        guard (200..<300).contains(response.status) else {
            return .refused("the server answered \(response.status); nothing imported")
        }
        // The file is named as the server names it, so the build's original keeps that name.
        var name = response.header("x-debuginfod-file").map { ($0 as NSString).lastPathComponent } ?? ""
        if name.isEmpty || name.hasPrefix(".") || name.contains("/") { name = id.compactString + ".\(kind.rawValue)" }
        let path = folder + "/" + name
        guard rename(download, path) == 0 else { return .refused("cannot rename \(download): \(Errno.current)") }
        if let refusal = Self.check(path, holds: id) { return .refused(refusal + "; nothing imported") }
        var summary = store.importPaths([path], progress: nil)
        if settings.keepOriginals, let originals = Originals.of(store) {
            summary.failures += originals.keep(from: summary)
        }
        if (summary.imported + summary.alreadyPresent).contains(where: { $0.uuid == id }) { return .imported }
        let reason = summary.failures.first.map { $0.error.message } ?? "no build of this id was imported"
        return .refused(reason)
    }

    /// Nil when the file at `path` is an object file holding the build `id`; else why it is refused.
    static func check(_ path: String, holds id: BuildID) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "the download cannot be read" }
        let prefix = [UInt8](handle.readData(ofLength: 64))
        try? handle.close()
        guard ObjectFile.looksLikeObjectFile(prefix: prefix) else {
            let start = String(decoding: prefix.prefix(16), as: UTF8.self).filter { !$0.isNewline }
            return "the answer is not an ELF or Mach-O file (it starts with \"\(start)\")"
        }
        let slices: [ObjectSlice]
        do {
            slices = try ObjectFile.slices(atPath: path)
        } catch {
            return "the answer cannot be read as an object file: \(error)"
        }
        guard slices.contains(where: { $0.info.uuid == id }) else {
            let held = slices.map(\.info.uuid.compactString).joined(separator: ", ")
            return "the file holds build \(held.isEmpty ? "none" : held), not the one asked for"
        }
        return nil
    }
}
