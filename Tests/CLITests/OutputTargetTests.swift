// Where outputs go when the path is not an ordinary file: `-o`, `batch --summary` and `batch
// --output-archive` onto a device, a FIFO or a symbolic link are written in place (the node
// stays what it was), over a regular file by rename; `import -o` puts its summary (the JSON one
// the server reads back) in a file instead of stdout or stderr; and stdout that cannot be written
// (a full disk, a reader that went away) ends with a message and exit 1, or quietly by SIGPIPE.

import Foundation
import TestSupport
import Testing

@Suite struct OutputTargetTests {
    static let report = Paths.samples + "/reports/HoldApp-ios-arm64-dwarf4.crash"
    static var reportAvailable: Bool { FileManager.default.fileExists(atPath: report) }

    /// mknod needs root (or CAP_MKNOD); tests of device nodes run only where it works.
    static let canMakeDevices: Bool = {
        let dir = NSTemporaryDirectory() + "/symbolicate-mknod-probe-\(getpid())"
        defer { unlink(dir) }
        return mknod(dir, S_IFCHR | 0o666, makedev(1, 3)) == 0
    }()

    static func makedev(_ major: UInt32, _ minor: UInt32) -> dev_t {
        dev_t(major & 0xfff) << 8 | dev_t(minor & 0xff) | dev_t(major & ~0xfff) << 32 | dev_t(minor & ~0xff) << 12
    }

    static func temporaryFolder() throws -> String {
        let dir = NSTemporaryDirectory() + "/symbolicate-output-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static func fileType(_ path: String) -> mode_t {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode & S_IFMT : 0
    }

    /// Opens the read end of a FIFO without waiting for a writer, and later drains it.
    struct FIFOReader {
        let fd: Int32
        init(_ path: String) throws {
            #expect(mkfifo(path, 0o644) == 0)
            fd = open(path, O_RDONLY | O_NONBLOCK)
            #expect(fd >= 0)
        }

        func drain() -> [UInt8] {
            var out: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                out += buffer[0..<n]
            }
            close(fd)
            return out
        }
    }

    // MARK: -o

    @Test(.enabled(if: canMakeDevices && reportAvailable, "needs mknod (root) and Samples/reports"))
    func outputOntoADeviceWritesIntoIt() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let device = dir + "/null"
        #expect(mknod(device, S_IFCHR | 0o666, Self.makedev(1, 3)) == 0)
        let r = try CLI.run(["-o", device, "--no-store", Self.report])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.fileType(device) == S_IFCHR, "the device node was replaced")
    }

    @Test(.enabled(if: reportAvailable, "needs Samples/reports"))
    func outputOntoAFIFOAndALinkToItWritesIntoIt() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let expected = try CLI.run(["--no-store", Self.report]).stdout
        #expect(!expected.isEmpty)
        let fifo = dir + "/fifo"
        let link = dir + "/link"
        let reader = try FIFOReader(fifo)
        #expect(symlink("fifo", link) == 0)
        for target in [fifo, link] {
            let r = try CLI.run(["-o", target, "--no-store", Self.report])
            #expect(r.status == 0, "\(r.stderr)")
        }
        #expect(Self.fileType(fifo) == S_IFIFO, "the FIFO was replaced")
        #expect(Self.fileType(link) == S_IFLNK, "the link was replaced")
        #expect(reader.drain() == expected + expected)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["fifo", "link"])
    }

    @Test(.enabled(if: reportAvailable, "needs Samples/reports"))
    func outputThroughALinkToAFileReplacesTheFileAndKeepsTheLink() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/out.crash"
        let link = dir + "/link.crash"
        try Data("old".utf8).write(to: URL(fileURLWithPath: file))
        #expect(chmod(file, 0o600) == 0)
        #expect(symlink("out.crash", link) == 0)
        let r = try CLI.run(["-o", link, "--no-store", Self.report])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.fileType(link) == S_IFLNK)
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(written == (try CLI.run(["--no-store", Self.report]).stdout))
        var st = stat()
        #expect(stat(file, &st) == 0 && st.st_mode & 0o777 == 0o600, "the file's permissions were not kept")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["link.crash", "out.crash"])
    }

    /// A private full device (1, 7), never the system's `/dev/full`: a binary that renames over
    /// its output would replace the node.
    @Test(.enabled(if: canMakeDevices && reportAvailable, "needs mknod (root) and Samples/reports"))
    func outputOntoAFullDeviceFailsWithAMessage() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let full = dir + "/full"
        #expect(mknod(full, S_IFCHR | 0o666, Self.makedev(1, 7)) == 0)
        let r = try CLI.run(["-o", full, "--no-store", Self.report])
        #expect(r.status == 1)
        #expect(r.stderr.contains("No space left on device"))
        #expect(Self.fileType(full) == S_IFCHR, "the device node was replaced")
    }

    // MARK: batch

    @Test(.enabled(if: canMakeDevices && reportAvailable, "needs mknod (root) and Samples/reports"))
    func batchSummaryAndArchiveOntoDevicesWriteIntoThem() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let summary = dir + "/summary.json"
        let archive = dir + "/out.zip"
        #expect(mknod(summary, S_IFCHR | 0o666, Self.makedev(1, 3)) == 0)
        #expect(mknod(archive, S_IFCHR | 0o666, Self.makedev(1, 3)) == 0)
        let r = try CLI.run([
            "batch", "--no-store", "--progress", "none", "--output-archive", archive, "--summary", summary, Self.report,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.fileType(summary) == S_IFCHR, "--summary replaced the device node")
        #expect(Self.fileType(archive) == S_IFCHR, "--output-archive replaced the device node")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["out.zip", "summary.json"])
    }

    @Test(.enabled(if: reportAvailable, "needs Samples/reports"))
    func batchArchiveIntoAFIFOIsAWholeArchive() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/out.tar"
        let reader = try FIFOReader(fifo)
        let r = try CLI.run(["batch", "--no-store", "--progress", "none", "--output-archive", fifo, Self.report])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.fileType(fifo) == S_IFIFO, "the FIFO was replaced")
        let bytes = reader.drain()
        // A tar whose first member is the report's output (ustar magic at offset 257).
        #expect(bytes.count >= 512 && Array(bytes[257..<262]) == Array("ustar".utf8))
    }

    static let dsym = Paths.samples + "/build/ios-arm64-dwarf5/HoldKit.framework.dSYM"

    @Test(.enabled(if: FileManager.default.fileExists(atPath: dsym), "needs Samples/build"))
    func importSummaryIntoAFile() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let dsym = Self.dsym
        let json = try CLI.run(["import", "--store", dir + "/store", "--json", "-o", dir + "/report.json", dsym])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdout.isEmpty && json.stderr.isEmpty)
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/report.json"))
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(report["version"] as? Int == 1)
        #expect((report["imported"] as? [[String: Any]])?.first?["name"] as? String == "HoldKit")
        let text = try CLI.run(["import", "--store", dir + "/store", "-o", dir + "/summary.txt", dsym])
        #expect(text.status == 0 && text.stdout.isEmpty && text.stderr.isEmpty, "\(text.stderr)")
        let summary = try String(contentsOfFile: dir + "/summary.txt", encoding: .utf8)
        #expect(summary.hasPrefix("imported 0 builds, 1 already present, 0 failed\n"), "\(summary)")
    }

    // MARK: stdout

    /// Runs the CLI with stdout on `path`.
    static func run(_ args: [String], stdoutPath path: String) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.executable)
        process.arguments = args
        guard let out = FileHandle(forWritingAtPath: path) else { throw CocoaError(.fileNoSuchFile) }
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus,
            String(decoding: errData, as: UTF8.self)
        )
    }

    @Test(arguments: [["--help"], ["list", "--help"], ["--version"]])
    func helpOntoAFullDiskFailsWithAMessage(_ args: [String]) throws {
        let r = try Self.run(args, stdoutPath: "/dev/full")
        #expect(r.status == 1)
        #expect(r.stderr.contains("cannot write to standard output: No space left on device"))
    }

    @Test(.enabled(if: reportAvailable, "needs Samples/reports"))
    func reportOntoAFullDiskFailsWithAMessage() throws {
        let r = try Self.run(["--no-store", Self.report], stdoutPath: "/dev/full")
        #expect(r.status == 1)
        #expect(r.stderr.contains("cannot write to standard output: No space left on device"))
    }

    /// A closed pipe with SIGPIPE inherited as ignored: no message, and the exit a shell shows
    /// for death by SIGPIPE (141), as with SIGPIPE at its default.
    @Test(arguments: [true, false])
    func closedPipeEndsQuietly(ignoringSIGPIPE: Bool) throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let errPath = dir + "/stderr"
        let trap = ignoringSIGPIPE ? "trap '' PIPE; " : "trap - PIPE; "
        // The reader (`true`) is gone before the writer starts.
        let text = try ProcessRunner.run(
            "/bin/bash",
            [
                "-c", trap + "(sleep 0.2; exec \"$0\" --help) 2>\"$1\" | true; echo \"${PIPESTATUS[0]}\"",
                CLI.executable, errPath,
            ]
        ).stdoutText
        #expect(text == "141\n", "not the status of death by SIGPIPE (132 is a trap)")
        #expect(try String(contentsOfFile: errPath, encoding: .utf8) == "")
    }
}
