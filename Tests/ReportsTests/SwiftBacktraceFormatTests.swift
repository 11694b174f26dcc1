// The Swift runtime's crash reports as the parser reads them and the writer writes them, and the
// bad input they come with: a report cut anywhere, an image without a build id, a frame kind
// or mark the runtime does not write (kept, malformed), a path written without JSON escaping,
// a report without an image list. The reports are in the layout the 6.3 runtime writes
// (`symbolicate=off`), shortened; SwiftBacktraceTests in SymbolicationTests crashes real programs.

import Foundation
import Reports
import SymbolicateModel
import Testing

struct SwiftBacktraceFormatTests {
    static let text = """
        *** Program crashed: Bad pointer dereference at 0x0000000000000008 ***

        Platform: arm64 Linux (Debian GNU/Linux 12 (bookworm))

        Thread 0 "main":

        0      0x0000ffff8e1c4301
        1 [ra] 0x0000ffff8e07bc29
        2      ...

        Thread 1 "worker" crashed:

         0         0x0000aaaad00102cc
         1 [ra]    0x0000aaaad0010398
         2 [weird] 0x0000aaaad00107dc
         3 [ra]
         4 [async] 0x0000aaaad0010000
         5 [ra]    0x0000000000001234
        ...


        Registers:

        x0 0x0000000000000000  0

        Images (11 omitted):

        0x0000aaaad0000000\u{2013}0x0000aaaad0013f60 c9a509d275d6af8893dbac9bd6b7557330cd377f app /srv/app with space/app
        0x0000ffff8e000000\u{2013}0x0000ffff8e1fa0fc <no build ID>                            libc.so.6 /usr/lib/libc.so.6

        Backtrace took 0.01s

        """

    static let json = """
        { "timestamp": "2026-12-04T16:06:18Z", "kind": "crashReport", "description": "Bad pointer dereference", \
        "platform": "Linux", "architecture": "arm64", "threads": [ { "name": "worker", "crashed": true, \
        "frames": [ { "kind": "programCounter", "address": "0x0000aaaad00102cc" }, \
        { "kind": "returnAddress", "address": "0x0000aaaad0010398" }, { "kind": "omittedFrames", "count": 3 }, \
        { "kind": "mystery", "address": "0x0000aaaad00107dc" }, \
        { "kind": "asyncResumePoint", "address": "0x0000aaaad0010000" }, { "kind": "truncated" } ] } ], \
        "omittedImages": 2, "images": [ { "name": "app", "buildId": "c9a509d275d6af8893dbac9bd6b7557330cd377f", \
        "path": "/srv/we"ird\\dir/app", "baseAddress": "0x0000aaaad0000000", "endOfText": "0x0000aaaad0013f60" } ] }

        """

    @Test func textReportsKeepEveryFrameAndTheirKinds() throws {
        let report = try ReportParser.parse(Array(Self.text.utf8))
        #expect(report.format == .swiftBacktrace)
        #expect(report.arch == Arch("aarch64"))
        #expect(report.images.map(\.name) == ["app", "libc.so.6"])
        #expect(report.images[0].path == "/srv/app with space/app" && report.images[0].size == 0x13f60)
        #expect(report.images[0].uuid?.compactString == "c9a509d275d6af8893dbac9bd6b7557330cd377f")
        #expect(report.images[1].uuid == nil && report.images[1].arch == Arch("aarch64"))
        let worker = try #require(report.backtraces.first { $0.crashed })
        #expect(worker.name == "worker" && worker.frames.map(\.number) == [0, 1, 2, 3, 4, 5])
        #expect(worker.frames.map(\.isReturnAddress) == [false, true, false, true, false, true])
        #expect(worker.frames.map(\.isMalformed) == [false, false, true, true, false, false])
        #expect(report.backtraces[0].frames.count == 2)
    }

    @Test func jsonReportsReadAnUnescapedPath() throws {
        let report = try ReportParser.parse(Array(Self.json.utf8))
        #expect(report.format == .swiftBacktraceJSON && report.arch == Arch("aarch64"))
        #expect(report.images.first?.path == "/srv/we\"ird\\dir/app")
        let frames = try #require(report.backtraces.first).frames
        #expect(frames.map(\.isReturnAddress) == [false, true, false, false])
        #expect(frames.map(\.isMalformed) == [false, false, true, false])
    }

    @Test func aReportWithoutImagesIsRefusedByName() {
        let noImages = Self.json.replacingOccurrences(of: "\"images\"", with: "\"imagesGone\"")
        #expect {
            try ReportParser.parse(Array(noImages.utf8))
        } throws: {
            "\($0)".contains("images=none")
        }
        let cut = String(Self.text.prefix { $0 != "R" })
        #expect {
            try ReportParser.parse(Array(cut.utf8))
        } throws: {
            "\($0)".contains("without an Images list")
        }
    }

    /// Every prefix of either report parses or is refused with an error; none traps.
    @Test(arguments: [text, json])
    func aReportCutAnywhereNeverTraps(_ whole: String) {
        let bytes = Array(whole.utf8)
        var parsed = 0
        for end in stride(from: 1, through: bytes.count, by: 3) {
            if (try? ReportParser.parse(Array(bytes[0..<end]))) != nil { parsed += 1 }
        }
        #expect(parsed > 0)
    }

    static let level = SymbolicatedFrame(
        symbol: "store(_:_:)", rawSymbol: "$s3app5storeyyF", file: "/src/app.swift", line: 1, isInline: true)
    static let outer = SymbolicatedFrame(
        symbol: "poke(_:)", rawSymbol: "$s3app4pokeyyF", symbolOffset: 6, file: "/src/app.swift", line: 4)

    @Test func textFramesGetTheRuntimesColumnsAndInlineLines() throws {
        let report = try ReportParser.parse(Array(Self.text.utf8))
        let b = try #require(report.backtraces.firstIndex { $0.crashed })
        let results = [
            FrameID(backtrace: b, frame: 1): FrameResult(status: .symbolicated, frames: [Self.level, Self.outer])
        ]
        let out = String(decoding: ReportWriter.write(report, results: results), as: UTF8.self)
        #expect(out.contains("\n 1 [inlined] 0x0000aaaad0010398 store(_:_:) in app at /src/app.swift:1\n"))
        // A return address: the offset from the call, as the runtime counts it.
        #expect(out.contains("\n 1 [ra]    0x0000aaaad0010398 poke(_:) + 5 in app at /src/app.swift:4\n"))
        #expect(
            out.replacingOccurrences(
                of: " 1 [inlined] 0x0000aaaad0010398 store(_:_:) in app at /src/app.swift:1\n", with: ""
            )
            .replacingOccurrences(of: " poke(_:) + 5 in app at /src/app.swift:4", with: "") == Self.text)
    }

    @Test func jsonFramesGetTheRuntimesKeys() throws {
        let valid = Self.json.replacingOccurrences(of: "we\"ird\\dir", with: "weird")
        let report = try ReportParser.parse(Array(valid.utf8))
        let results = [
            FrameID(backtrace: 0, frame: 0): FrameResult(status: .symbolicated, frames: [Self.level, Self.outer])
        ]
        let out = ReportWriter.write(report, results: results)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(out)) as? [String: Any])
        let threads = try #require(root["threads"] as? [[String: Any]])
        let frames = try #require(threads.first?["frames"] as? [[String: Any]])
        #expect(frames.count == 7)
        #expect(frames[0]["inlined"] as? Bool == true && frames[0]["symbol"] as? String == "$s3app5storeyyF")
        #expect(frames[0]["address"] as? String == "0x0000aaaad00102cc")
        #expect(frames[1]["symbol"] as? String == "$s3app4pokeyyF" && frames[1]["offset"] as? Int == 6)
        let location = try #require(frames[1]["sourceLocation"] as? [String: Any])
        #expect(location["file"] as? String == "/src/app.swift" && location["line"] as? Int == 4)
    }
}
