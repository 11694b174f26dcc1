// PLCrashReporter protobuf reports. A report over the Samples' build is written in protobuf text
// format, encoded by Debian's protoc with our schema subset (Tests/PLCrash/plcrash.proto) and given
// the 8-byte `plcrash\x01` header: its frames are read at the addresses written, every
// HoldApp / HoldKit frame is held to llvm-symbolizer, and the Apple text it renders carries the
// symbol columns. The corpus' fuzz seed is read frame for frame as protoc --decode reads it.
// Damaged messages (cut anywhere, wrong wire types, lengths past the end, unknown fields) give a
// clear error or a report, never a trap.

import Foundation
import Reports
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

enum PLCrashFixture {
    static var schema: String { Paths.repository + "/Tests/PLCrash/plcrash.proto" }

    /// `text` (protobuf text format of plcrash.CrashReport) encoded by protoc, with the header.
    static func encode(_ text: String) throws -> [UInt8] {
        let folder = URL(fileURLWithPath: schema).deletingLastPathComponent().path
        let result = try ProcessRunner.run(
            "/usr/bin/protoc", ["--encode=plcrash.CrashReport", "-I", folder, schema], stdin: Array(text.utf8))
        guard result.status == 0 else { throw SymbolicateError(.badInput, "protoc: \(result.stderrText)") }
        return Array("plcrash".utf8) + [1] + result.stdout
    }

    /// The `pc:` values protoc --decode reads from a report, in order.
    static func decodedPCs(_ bytes: [UInt8]) throws -> [UInt64] {
        let folder = URL(fileURLWithPath: schema).deletingLastPathComponent().path
        let result = try ProcessRunner.run(
            "/usr/bin/protoc", ["--decode=plcrash.CrashReport", "-I", folder, schema], stdin: Array(bytes.dropFirst(8)))
        return result.stdoutText.split(separator: "\n").compactMap { line in
            let t = line.trimmingCharacters(in: .whitespaces)
            return t.hasPrefix("pc: ") ? UInt64(t.dropFirst(4)) : nil
        }
    }

    /// A report over the sample build: one crashed thread with the sample's frames, 16-byte UUIDs.
    static func sampleReport() throws -> [UInt8] {
        let sample = try KSCrashSample.sample()
        var text = """
            system_info { operating_system: 1 os_version: "17.4" timestamp: 1700000000 os_build: "21E219" }
            application_info { identifier: "com.example.HoldApp" version: "7" marketing_version: "1.2" }
            signal { name: "SIGSEGV" code: "SEGV_MAPERR" address: 8 }
            process_info { process_name: "HoldApp" process_id: 42 parent_process_name: "launchd" parent_process_id: 1 }
            machine_info { model: "iPhone15,2" processor { encoding: 1 type: 16777228 subtype: 0 } }
            threads { thread_number: 0 crashed: true

            """
        for frame in sample.frames { text += "  frames { pc: \(frame.address) }\n" }
        text += "  registers { name: \"pc\" value: \(sample.frames.first?.address ?? 0) }\n}\n"
        for image in sample.images {
            let uuid = try #require(BuildID(string: image.uuid)).bytes.map { String(format: "\\x%02x", $0) }.joined()
            text += """
                binary_images { base_address: \(image.load) size: \(image.size) name: "/private/var/\(image.name)"
                  uuid: "\(uuid)" code_type { encoding: 1 type: 16777228 subtype: 0 } }

                """
        }
        return try encode(text)
    }
}

@Suite(.needsProtoc) struct PLCrashTests {
    @Test(.enabled(if: KSCrashSample.available, "Samples/build is absent (run Samples/generate.sh)"), .needsReferee)
    func sampleReportMatchesLLVMSymbolizer() throws {
        let bytes = try PLCrashFixture.sampleReport()
        let locator = try SymbolPathLocator(paths: [Paths.samples + "/build"])
        let processed = try SymbolicationService(locator: locator).process(bytes, format: nil)
        #expect(processed.report.format == .plcrash && processed.format == .crash)
        let frames = processed.report.backtraces[0].frames
        #expect(frames.map(\.address) == (try PLCrashFixture.decodedPCs(bytes)))
        #expect(try SymbolicationCheck.compare(processed, locator: locator) == frames.count)
        let text = String(decoding: processed.output, as: UTF8.self)
        #expect(text.contains("Identifier:      com.example.HoldApp\n"))
        #expect(text.contains("Version:         1.2 (7)\n"))
        #expect(text.contains("Exception Type:  SIGSEGV\n"))
        #expect(text.contains("\nThread 0 Crashed:\n"))
        let outer = try #require(processed.outcome.results[FrameID(backtrace: 0, frame: 0)]?.frames.last)
        #expect(text.contains(ReportWriter.symbolColumn(outer)))
        // Read back as a text report, the rendering has the same frames.
        let again = try ReportParser.parse(processed.output)
        #expect(again.backtraces.first?.frames.map(\.address) == frames.map(\.address))
    }

    @Test(.tags(.corpus), .needsCorpus)
    func corpusFuzzSeedIsReadAsProtocReadsIt() throws {
        let path = Paths.corpus + "/microsoft__plcrashreporter/Resources/fuzz_report.plcrash"
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let report = try ReportParser.parse(bytes)
        #expect(report.format == .plcrash)
        #expect(report.backtraces.flatMap(\.frames).map(\.address) == (try PLCrashFixture.decodedPCs(bytes)))
    }

    @Test func damagedMessagesGiveAnErrorOrAReport() throws {
        let whole = try PLCrashFixture.encode(
            """
            application_info { identifier: "x" version: "1" }
            threads { thread_number: 0 crashed: true frames { pc: 4096 } frames { pc: 8192 } }
            binary_images { base_address: 4096 size: 4096 name: "/A" uuid: "0123456789abcdef" }
            custom_data: "unknown to us"
            """)
        let report = try ReportParser.parse(whole)
        #expect(report.backtraces[0].frames.map(\.address) == [4096, 8192])
        #expect(report.images.first?.uuid != nil)
        for cut in 0..<whole.count {
            do {
                _ = try ReportParser.parse(Array(whole[..<cut]))
            } catch let error as SymbolicateError {
                #expect(error.code == .badInput || error.code == .unsupported)
            }
        }
        // threads (field 3) as a varint; a length past the end; an end-group alone; a 11-byte varint.
        let bad: [[UInt8]] = [[0x18, 0x05], [0x1A, 0x7F, 0x00], [0x1C], [0x08] + Array(repeating: 0xFF, count: 11)]
        for body in bad {
            #expect(throws: SymbolicateError.self) { try ReportParser.parse(Array("plcrash".utf8) + [1] + body) }
        }
        // Unknown fields, a group among them, are skipped.
        let unknown: [UInt8] = [0x5B, 0x08, 0x01, 0x5C, 0x60, 0x07]
        #expect(try ReportParser.parse(Array("plcrash".utf8) + [1] + unknown).backtraces.isEmpty)
    }
}
