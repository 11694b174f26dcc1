// A server killed with SIGKILL in the middle of an upload: its import child dies with it instead
// of living on as an orphan, and what the request left in `<store>/tmp` (the upload body, the
// staged import folder) is removed by the next start-up, `verify` or `gc` once it is old enough
// that no live request can own it. The server runs as its own process, as in production.

import Foundation
import TestSupport
import Testing

@Suite(.tags(.server, .slow)) struct ServerKillTests {
    static let dwarf = Paths.samples + "/build/ios-arm64-dwarf4/HoldApp.app.dSYM/Contents/Resources/DWARF/HoldApp"
    static let tools = ["/usr/bin/curl", "/usr/bin/sqlite3"]
    static var ready: Bool {
        FileManager.default.fileExists(atPath: dwarf)
            && tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func scratch() throws -> String {
        let dir = NSTemporaryDirectory() + "/symbolicate-serverkill-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A store folder with an empty catalog, and a token file.
    static func makeStore(in dir: String) throws -> (store: String, tokenFile: String) {
        let store = dir + "/store"
        _ = try CLI.run(["import", "--store", store, dir + "/nothing-here"])
        #expect(FileManager.default.fileExists(atPath: store + "/catalog.sqlite"))
        let tokenFile = dir + "/tokens"
        try Data("t0ken-for-tests\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
        return (store, tokenFile)
    }

    /// `symbolicate serve` on a free loopback port; returns the process and its port.
    static func startServer(store: String, tokenFile: String) throws -> (Process, Int) {
        var arguments = ["--store", store, "--token-file", tokenFile]
        // A sanitized child reserves terabytes of address space before it does anything.
        if ProcessRunner.sanitized { arguments += ["--import-memory", "65536G"] }
        return try ServeProcess.start(CLI.executable, arguments)
    }

    /// The children of `parent`, from /proc.
    static func children(of parent: pid_t) -> [pid_t] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { name -> pid_t? in
            guard let pid = pid_t(name), let fields = processStat(pid), fields.count > 2, pid_t(fields[2]) == parent
            else { return nil }
            return pid
        }
    }

    /// The fields of /proc/PID/stat after the command name: state, ppid, ...
    static func processStat(_ pid: pid_t) -> [String]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        return ["\(pid)"] + text[text.index(after: close)...].split(separator: " ").map(String.init)
    }

    /// Gone, or a zombie waiting for whoever adopted it to reap it.
    static func isDead(_ pid: pid_t) -> Bool {
        guard let fields = processStat(pid), fields.count > 1 else { return true }
        return fields[1] == "Z" || fields[1] == "X"
    }

    static func waitFor(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    @Test(.enabled(if: ready, "needs Samples/build, curl and sqlite3"))
    func theImportChildDiesWithAKilledServer() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (store, tokenFile) = try Self.makeStore(in: dir)

        // Another process holds the catalog's write lock, so the import child waits in its commit.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        holder.arguments = [store + "/catalog.sqlite"]
        let holderIn = Pipe()
        holder.standardInput = holderIn
        holder.standardOutput = FileHandle.nullDevice
        holder.standardError = FileHandle.nullDevice
        try holder.run()
        defer {
            try? holderIn.fileHandleForWriting.close()
            holder.waitUntilExit()
        }
        holderIn.fileHandleForWriting.write(Data("BEGIN IMMEDIATE;\nUPDATE builds SET status = status;\n".utf8))
        #expect(
            Eventually.waitFor { !ProcessFacts.canTakeWriteLock(store + "/catalog.sqlite") },
            "sqlite3 never took the catalog's write lock")

        let (server, port) = try Self.startServer(store: store, tokenFile: tokenFile)
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }
        let upload = Process()
        upload.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        upload.arguments = [
            "-s", "-o", "/dev/null", "--max-time", "60", "-H", "Authorization: Bearer t0ken-for-tests",
            "--data-binary", "@" + Self.dwarf, "http://127.0.0.1:\(port)/v1/symbols",
        ]
        try upload.run()
        defer { if upload.isRunning { upload.terminate() } }

        var child: pid_t = 0
        #expect(
            Self.waitFor(seconds: 20) {
                child = Self.children(of: server.processIdentifier).first ?? 0
                return child != 0
            }, "the server started no import child")
        defer { if child != 0, !Self.isDead(child) { kill(child, SIGKILL) } }
        guard child != 0 else { return }
        // Once the child has the catalog open (it waits for the lock there), kill the server as an
        // OOM killer would.
        #expect(
            Eventually.waitFor { ProcessFacts.hasOpen(child, pathEndingWith: "/catalog.sqlite") },
            "the import child never opened the catalog")
        #expect(!Self.isDead(child))
        kill(server.processIdentifier, SIGKILL)
        // Checked before waiting for the server: Foundation's wait may last as long as the child.
        #expect(Self.waitFor(seconds: 5) { Self.isDead(child) }, "the import child outlived the server")
        if !Self.isDead(child) { kill(child, SIGKILL) }
        server.waitUntilExit()
    }

    /// Backdates `path` (and, for a folder, what it holds) by `seconds`.
    static func backdate(_ path: String, by seconds: Int) {
        let old = time(nil) - seconds
        var times = [timeval(tv_sec: old, tv_usec: 0), timeval(tv_sec: old, tv_usec: 0)]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
            utimes(path + "/" + name, &times)
        }
        utimes(path, &times)
    }

    /// What a killed server leaves: an upload body and a staged import folder, each once
    /// recent and once two hours old.
    static func leaveTransfers(in store: String) throws {
        let tmp = store + "/tmp"
        for (name, age) in [("old", 7200), ("new", 0)] {
            let upload = tmp + "/upload-\(name)"
            try Data("body".utf8).write(to: URL(fileURLWithPath: upload))
            let staged = tmp + "/import-\(name)"
            try FileManager.default.createDirectory(atPath: staged, withIntermediateDirectories: true)
            #expect(link(upload, staged + "/HoldApp") == 0)
            backdate(upload, by: age)
            backdate(staged, by: age)
        }
    }

    static func transfers(in store: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: store + "/tmp").filter {
            $0.hasPrefix("upload-") || $0.hasPrefix("import-")
        }.sorted()
    }

    @Test(.enabled(if: ready, "needs Samples/build, curl and sqlite3"), arguments: ["serve", "verify", "gc"])
    func staleTransfersAreRemovedAndLiveOnesKept(_ command: String) throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (store, tokenFile) = try Self.makeStore(in: dir)
        try Self.leaveTransfers(in: store)
        switch command {
        case "serve":
            // Listening means start-up is over. SIGKILL, not SIGTERM: a server started from the
            // test runner may inherit a signal mask that blocks SIGTERM.
            let (server, _) = try Self.startServer(store: store, tokenFile: tokenFile)
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        case "verify":
            let r = try CLI.run(["verify", "--store", store])
            #expect(r.status == 0, "\(r.stderr)")
        default:
            let r = try CLI.run(["gc", "--store", store, "--older-than", "365"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        #expect(try Self.transfers(in: store) == ["import-new", "upload-new"])
    }
}
