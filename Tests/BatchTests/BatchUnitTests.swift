// The small rules a batch run rests on, tested without the Samples: path sanitizing (a hostile
// member name cannot leave the output folder), output names for --format, the collision rule,
// shard parsing and the stable hash (pinned against an independent Python implementation, since
// machines of one sharded run must agree across versions), the bounded channel's back-pressure,
// and telling an unparsable report from a non-report.

import Archives
import Foundation
import Reports
import SymbolicateModel
import TestSupport
import Testing

@testable import Batch

struct BatchUnitTests {
    @Test(
        arguments: [
            ("set0/a/x.crash", "set0/a/x.crash"),
            ("../../etc/passwd", "etc/passwd"),
            ("/abs/./x.ips", "abs/x.ips"),
            ("a\\b\\..\\c.crash", "a/b/c.crash"),
            ("./", nil),
            ("..", nil),
            // A slash followed by a combining mark is one character with it, but still a slash.
            ("../\u{301}x.crash", "\u{301}x.crash"),
            ("/\u{301}abs/x.crash", "\u{301}abs/x.crash"),
            ("a/\u{301}/../x.crash", "a/\u{301}/x.crash"),
            ("..\\\u{301}x.crash", "\u{301}x.crash"),
            // A NUL byte ends a name for the file system: `..\0/x` would be `..` there.
            ("a/..\0/x.crash", "a/x.crash"),
            ("x\0.crash", nil),
        ] as [(String, String?)])
    func sanitize(_ input: String, _ expected: String?) {
        #expect(OutputPaths.sanitize(input) == expected)
    }

    /// Names that climb out of a folder are refused however the slash is followed.
    @Test(arguments: [
        ("x/y.crash", true), ("\u{301}x.crash", true), ("a/\u{301}x", true), ("..\u{301}/x", true),
        ("../x", false), ("../\u{301}x", false), ("/\u{301}x", false), ("a/../\u{301}x", false),
        ("\\\u{301}x", false), ("x\0\u{301}", false),
    ])
    func unsafeArchiveNames(_ name: String, _ safe: Bool) {
        #expect(ArchiveNames.isSafe(name) == safe)
    }

    /// A file whose name begins with a combining mark is written inside the output folder, at
    /// its own name.
    @Test func outputNamesBeginningWithACombiningMarkStayInTheFolder() throws {
        let root = NSTemporaryDirectory() + "symbolicate-combining-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/out", withIntermediateDirectories: true)
        let sink = try OutputSink(.directory(root + "/out"))
        for name in ["set/\u{301}x.crash", "\u{301}y.crash"] {
            try sink.write(name, Array("x\n".utf8))
            #expect(FileManager.default.fileExists(atPath: root + "/out/" + name), "\(name)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: root) == ["out"])
    }

    @Test func outputNames() {
        #expect(OutputPaths.outputName("a/x.crash", format: nil) == "a/x.crash")
        #expect(OutputPaths.outputName("a/x.ips", format: .crash) == "a/x.crash")
        #expect(OutputPaths.outputName("a/x.IPS", format: .json) == "a/x.json")
        #expect(OutputPaths.outputName("a/x.txt", format: .ips) == "a/x.ips")
        #expect(OutputPaths.outputName("a.d/report", format: .json) == "a.d/report.json")
        #expect(OutputPaths.outputName("a/.hidden", format: .crash) == "a/.hidden.crash")
        #expect(OutputPaths.inputBaseName("/data/Reports.tar.gz") == "Reports")
        #expect(OutputPaths.inputBaseName("exports/jan.zip/") == "jan")
        #expect(OutputPaths.inputBaseName("folder/") == "folder")
    }

    @Test func collisionsGetTheInputNameThenANumber() {
        var several = PathAllocator(multipleInputs: true)
        #expect(several.allocate("x.crash", inputBase: "a") == "x.crash")
        #expect(several.allocate("x.crash", inputBase: "b") == "b/x.crash")
        #expect(several.allocate("x.crash", inputBase: "b") == "b/x~2.crash")
        var one = PathAllocator(multipleInputs: false)
        #expect(one.allocate("d/x.crash", inputBase: "a") == "d/x.crash")
        #expect(one.allocate("d/x.crash", inputBase: "a") == "d/x~2.crash")
        #expect(one.allocate("d/x.crash", inputBase: "a") == "d/x~3.crash")
        #expect(one.allocate("noext", inputBase: "a") == "noext")
        #expect(one.allocate("noext", inputBase: "a") == "noext~2")
    }

    /// No name is handed out that a file and a folder would both need: a file never gets a name
    /// under an earlier file, nor the name of an earlier folder.
    @Test func aFileAndAFolderNeverShareAName() {
        var several = PathAllocator(multipleInputs: true)
        // Two single-file inputs named alike: the input's base name is the file itself.
        #expect(several.allocate("x.crash", inputBase: "x.crash") == "x.crash")
        #expect(several.allocate("x.crash", inputBase: "x.crash") == "x~2.crash")
        var one = PathAllocator(multipleInputs: false)
        #expect(one.allocate("a/b.crash", inputBase: "z") == "a/b.crash")
        #expect(one.allocate("a", inputBase: "z") == "a~2")
        #expect(one.allocate("c", inputBase: "z") == "c")
        #expect(one.allocate("c/d.crash", inputBase: "z") == "c~2/d.crash")
        #expect(one.allocate("c/d.crash", inputBase: "z") == "c~3/d.crash")
    }

    @Test func shardParsing() throws {
        let shard = try Shard(parsing: "2/5")
        #expect(shard.index == 2 && shard.count == 5 && shard.description == "2/5")
        for bad in ["5/5", "-1/3", "1", "a/b", "1/0", "1/2/3", ""] {
            #expect(throws: SymbolicateError.self, "\(bad)") { try Shard(parsing: bad) }
        }
    }

    @Test func stableHashIsPinned() throws {
        // Values from FNV-1a 64 + SplitMix64 finalizer computed in Python.
        #expect(OutputPaths.stableHash("set0/a/x.crash") == 0x63ea_9dcd_1604_09a3)
        #expect(OutputPaths.stableHash("") == 0xf52a_15e9_a9b5_e89b)
        #expect(OutputPaths.stableHash("HoldApp-ios-arm64-dwarf4.crash") == 0x690b_7d77_9e0d_3efc)
        #expect(try Shard(index: 3, count: 4).contains("set0/a/x.crash"))
        #expect(try Shard(index: 0, count: 4).contains("HoldApp-ios-arm64-dwarf4.crash"))
    }

    @Test func shardsSplitEvenlyWithNoGapOrOverlap() throws {
        let shards = try (0..<4).map { try Shard(index: $0, count: 4) }
        var sizes = [0, 0, 0, 0]
        for i in 0..<4000 {
            let path = "export/2026-11/device-\(i % 37)/report-\(i).crash"
            let owners = shards.indices.filter { shards[$0].contains(path) }
            #expect(owners.count == 1)
            if let owner = owners.first { sizes[owner] += 1 }
        }
        #expect(sizes.allSatisfy { $0 > 850 && $0 < 1150 }, "uneven: \(sizes)")
    }

    @Test func channelBlocksWhenFull() {
        let channel = BoundedChannel<Int>(capacity: 2)
        let sent = Counter()
        let producer = Thread {
            for i in 0..<5 {
                channel.send(i)
                sent.increment()
            }
            channel.close()
        }
        producer.start()
        #expect(Eventually.waitFor { channel.waiting.senders == 1 }, "the producer never blocked")
        #expect(sent.value == 2, "the producer ran \(sent.value) sends ahead of a capacity of 2")
        var received: [Int] = []
        while let value = channel.receive() { received.append(value) }
        #expect(received == [0, 1, 2, 3, 4])
    }

    @Test func cancelWakesProducer() {
        let channel = BoundedChannel<Int>(capacity: 1)
        channel.send(1)
        let result = Counter()
        let producer = Thread {
            if !channel.send(2) { result.increment() }
        }
        producer.start()
        #expect(Eventually.waitFor { channel.waiting.senders == 1 }, "the producer never blocked")
        channel.cancel()
        #expect(Eventually.waitFor { result.value == 1 }, "cancel left the producer blocked")
        #expect(channel.receive() == nil)
    }

    @Test func reportLookingBytes() {
        #expect(ReportParser.looksLikeReport(Array("Incident Identifier: 1\nHardware Model: x\n".utf8)))
        #expect(ReportParser.looksLikeReport(Array("{\"bug_type\":\"309\"}\n{\"threads\":".utf8)))
        #expect(!ReportParser.looksLikeReport(Array("just some notes\n".utf8)))
        #expect(!ReportParser.looksLikeReport([0x7F, 0x45, 0x4C, 0x46, 0, 0, 0]))
    }

    @Test func validationRefusesContradictions() throws {
        let folder = FileManager.default.temporaryDirectory.path
        var configuration = BatchConfiguration(inputs: [folder], destination: .archive(folder + "/x.zip"), resume: true)
        #expect(throws: SymbolicateError.self) { try configuration.validate() }
        configuration.resume = false
        configuration.destination = .archive(folder + "/x.rar")
        #expect(throws: SymbolicateError.self) { try configuration.validate() }
        configuration.destination = .directory(folder + "/out")
        configuration.inputs = [folder + "/does-not-exist-\(UUID().uuidString)"]
        #expect(throws: SymbolicateError.self) { try configuration.validate() }
        configuration.inputs = ["-", "-"]
        #expect(throws: SymbolicateError.self) { try configuration.validate() }
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}
