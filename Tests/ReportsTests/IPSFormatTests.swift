// Tests of the `.ips` parser on a hand-written report: header line, top-level fields with a
// duplicate key, frame addresses from image base + offset, faulting thread, Last Exception
// Backtrace, unknown keys and escapes; plus the inspector's two descriptions of a report.

import Foundation
import Reports
import SymbolicateModel
import Testing

@Suite struct IPSFormatTests {
    @Test func parsesTheBody() throws {
        let r = try ReportParser.parse(Array(Fixtures.ipsReport.utf8))
        #expect(r.format == .ips)
        #expect(r.jsonHeader == #"{"app_name":"MyApp","bug_type":"309","name":"MyApp"}"#)
        #expect(r.fields.filter { $0.key == "procName" }.map(\.value) == ["MyApp", "Duplicate"])
        #expect(r.field("procName") == "MyApp" && r.field("faultingThread") == "0")
        #expect(r.arch == .arm64)
        #expect(r.images.map(\.name) == ["libswiftCore.dylib", "MyApp"])
        #expect(r.images[0].path == "/usr/lib/swift/libswiftCore.dylib" && r.images[0].arch == .arm64e)
        #expect(r.images[1].uuid == BuildID(string: "82D13D98219E3040B62A07A297007A7C") && r.images[1].size == 32768)
        #expect(r.backtraces.map(\.kind) == [.thread, .thread, .lastException])
        let t0 = r.backtraces[0]
        #expect(t0.crashed && t0.queue == "com.apple.main-thread" && t0.number == 0)
        let app: UInt64 = 4_303_175_680
        let swiftCore: UInt64 = 7_207_194_624
        let expected: [UInt64] = [app + 25788, swiftCore + 100, app + 25036]
        #expect(t0.frames.map(\.address) == expected)
        #expect(t0.frames.map(\.imageIndex) == [1, 0, 1])
        #expect(t0.frames.map(\.isReturnAddress) == [false, true, true])
        #expect(t0.frames[1].symbol == "old" && t0.frames[1].symbolOffset == 4)
        #expect(r.backtraces[1].name == "worker" && !r.backtraces[1].crashed)
        #expect(r.backtraces[2].frames.map(\.isReturnAddress) == [true])
        #expect(r.backtraces.flatMap(\.frames).allSatisfy { $0.symbolColumn == nil })
    }

    @Test func noiseBeforeTheHeaderAndCRLF() throws {
        let noisy = "crash from QA:\r\n\r\n" + Fixtures.ipsReport.replacing("\n", with: "\r\n")
        let bytes = Array(noisy.utf8)
        let r = try ReportParser.parse(bytes)
        #expect(r.format == .ips && r.frameCount == 5)
        #expect(ReportWriter.write(r, results: [:]) == bytes)
        let out = ReportWriter.write(r, results: WriterTests.ipsResults)
        #expect(out != bytes)
        // The inline object added is a level of its frame, not a frame.
        #expect(try ReportParser.parse(out).frameCount == 5)
    }

    /// A no-break space (C2 A0, as chat tools paste) on the blank line between the header and
    /// the body is blank like a space or a tab, for the parser and for the writer alike.
    @Test func noBreakSpaceBetweenTheHeaderAndTheBody() throws {
        let original = Array(Fixtures.ipsReport.utf8)
        let bodyStart = try #require(original.firstIndex(of: 0x0A)) + 1
        let blankLine = Array("\u{A0}\t\u{A0}\n".utf8)
        let bytes = Array(original[..<bodyStart]) + blankLine + original[bodyStart...]
        let r = try ReportParser.parse(bytes)
        #expect(r.format == .ips && r.frameCount == 5)
        #expect(ReportParser.ipsBodyStart(bytes) == bodyStart + blankLine.count)
        #expect(ReportWriter.write(r, results: [:]) == bytes)
        let out = ReportWriter.write(r, results: WriterTests.ipsResults)
        #expect(out.count > bytes.count)
        #expect(try ReportParser.parse(out).frameCount == 5)
    }

    @Test func truncatedBodyIsBadInput() throws {
        let text = Fixtures.ipsReport
        let cut = String(text.prefix(text.count / 2))
        do {
            _ = try ReportParser.parse(Array(cut.utf8))
            Issue.record("a truncated .ips parsed")
        } catch let e as SymbolicateError {
            #expect(e.code == .badInput && e.message.contains(".ips"))
        }
    }

    @Test func kernelPanicHeaderIsRefused() {
        let panic =
            #"{"bug_type":"210","timestamp":"2022-01-01"}"# + "\n{\"macOSPanicString\":\"panic(cpu 0 caller 0x0)\"}"
        do {
            _ = try ReportParser.parse(Array(panic.utf8))
            Issue.record("a panic parsed")
        } catch let e as SymbolicateError {
            #expect(e.code == .unsupported && e.message.contains("kernel panic"))
        } catch { Issue.record("wrong error") }
    }

    @Test func inspectorDescribesTheModel() throws {
        let r = try ReportParser.parse(Array(Fixtures.textReport.utf8))
        let json = ReportInspector.json(r)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["format"] as? String == "text" && object["arch"] as? String == "arm64")
        let backtraces = try #require(object["backtraces"] as? [[String: Any]])
        #expect(backtraces.map { ($0["frames"] as? [Any])?.count ?? -1 } == [4, 2, 1, 4])
        let images = try #require(object["images"] as? [[String: Any]])
        #expect(images[1]["uuid"] as? String == "82D13D98-219E-3040-B62A-07A297007A7C")
        #expect(images[1]["load_address"] as? String == "0x1007d4000" && images[1]["size"] as? Int == 32768)
        let fields = try #require(object["fields"] as? [[String: String]])
        #expect(fields.first?["key"] == "Incident Identifier")

        let text = ReportInspector.text(r)
        #expect(text.contains("format: text\n"))
        #expect(text.contains("  thread 0 (crashed) queue: com.apple.main-thread: 4 frames\n"))
        #expect(text.contains("    1 My App 0x1007da4bc image #1\n"))
        #expect(
            text.contains(
                "  #1 My App arm64 82D13D98-219E-3040-B62A-07A297007A7C load 0x1007d4000 size 0x8000 /private/var/containers/Bundle/Application/X/My App.app/My App\n"
            ))
    }
}
