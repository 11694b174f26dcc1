// KSCrash JSON reports: every one in the corpus (KSCrash's Example-Reports, 1.x; Sentry's
// SentryCrash fork) is read with each frame Foundation's JSONSerialization finds, at the address it
// states, with its image placed by `object_addr`; the recrash report of a crash in the handler is
// read too. Hostile reports (truncated, frames without addresses or images, images without UUIDs,
// addresses as strings, numbers above 2^53, 10,000 levels of nesting) give an error or a partial
// report, never a trap.

import Foundation
import Reports
import SymbolicateModel
import TestSupport
import Testing

@Suite struct KSCrashTests {
    @Test(.tags(.corpus), .needsCorpus, arguments: Corpus.ksCrashReports)
    func corpusReportsAreReadFrameByFrame(entry: Corpus.Entry) throws {
        let bytes = try Corpus.bytes(entry.file)
        let report = try ReportParser.parse(bytes)
        #expect(report.format == .kscrash)
        let truth = try KSCrashFrames.read(bytes)
        let frames = report.backtraces.flatMap(\.frames)
        #expect(frames.count == truth.count)
        #expect(!frames.isEmpty)
        for (frame, expected) in zip(frames, truth) {
            #expect(frame.address == (expected["instruction_addr"] as? NSNumber)?.uint64Value)
            if let load = (expected["object_addr"] as? NSNumber)?.uint64Value {
                #expect(report.image(for: frame)?.loadAddress == load, "frame at 0x\(String(frame.address, radix: 16))")
            }
            #expect(frame.symbol == expected["symbol_name"] as? String)
        }
        #expect(report.backtraces.contains { $0.crashed })
        #expect(report.field("Incident Identifier") != nil)
        #expect(report.field("Exception Type") != nil)
        #expect(report.images.contains { $0.uuid != nil })
    }

    @Test(.tags(.corpus), .needsCorpus)
    func crashInTheHandlerReadsTheRecrashReport() throws {
        let report = try ReportParser.parse(try Corpus.bytes("kstenerud__KSCrash/Example-Reports/CrashInHandler.json"))
        let last = try #require(report.backtraces.last)
        #expect(last.number == 7 && last.crashed)
        #expect(last.frames.first?.symbol == "__vfprintf")
        #expect(last.frames.first?.isReturnAddress == false && last.frames.last?.isReturnAddress == true)
    }

    @Test(.tags(.corpus), .needsCorpus)
    func exceptionReasonIsTheApplicationSpecificInformation() throws {
        let report = try ReportParser.parse(try Corpus.bytes("kstenerud__KSCrash/Example-Reports/NSException.json"))
        #expect(report.field("Exception Type") == "EXC_CRASH (SIGABRT)")
        #expect(report.applicationSpecificInformation?.hasPrefix("NSInvalidArgumentException: -[__NSArrayI") == true)
        #expect(report.arch == .armv7)
    }

    // MARK: Hostile reports

    static func report(frames: String, images: String = "[]") -> [UInt8] {
        Array(
            """
            {"report": {"id": "X", "version": "3.1.0"}, "binary_images": \(images),
             "crash": {"error": {"type": "signal"}, "threads": [{"index": 0, "crashed": true,
              "backtrace": {"contents": \(frames)}}]}}
            """.utf8)
    }

    @Test func addressesAsStringsNumbersAndAbove2To53AreReadExactly() throws {
        let images = """
            [{"image_addr": "0x100000000", "image_size": 4096, "name": "/A", "uuid": "5425B875-D142-3832-BE8C-3B7DD8130813"},
             {"image_addr": 18446744073709547520, "image_size": 4096, "name": "/B"}]
            """
        let frames = """
            [{"instruction_addr": "0x100000010", "object_addr": 4294967296},
             {"instruction_addr": 18446744073709547521, "object_addr": "18446744073709547520"},
             {"instruction_addr": "4294967312"}]
            """
        let report = try ReportParser.parse(Self.report(frames: frames, images: images))
        let f = report.backtraces[0].frames
        #expect(f.map(\.address) == [0x1_0000_0010, 18_446_744_073_709_547_521, 0x1_0000_0010])
        #expect(report.image(for: f[0])?.name == "A" && report.image(for: f[1])?.name == "B")
        #expect(report.image(for: f[1])?.uuid == nil)
        #expect(report.image(for: f[2])?.name == "A")
    }

    @Test func framesWithoutAddressesKeepTheirPlace() throws {
        let frames = """
            [{"object_addr": 4096, "object_name": "A"}, {"instruction_addr": null}, {"instruction_addr": 8192},
             {"instruction_addr": -5}, {"instruction_addr": 1.5}, 7]
            """
        let report = try ReportParser.parse(Self.report(frames: frames))
        let f = report.backtraces[0].frames
        #expect(f.map(\.isMalformed) == [true, true, false, true, true])
        #expect(f[2].address == 8192 && f[2].isReturnAddress)
    }

    @Test func truncatedReportsAreRefusedWithTheReason() throws {
        let whole = Self.report(frames: "[{\"instruction_addr\": 8192}]")
        for cut in stride(from: 1, to: whole.count - 1, by: 7) {
            do {
                _ = try ReportParser.parse(Array(whole[..<cut]))
            } catch let error as SymbolicateError {
                #expect(error.code == .badInput || error.code == .unsupported, "\(error.message)")
            }
        }
        #expect(throws: SymbolicateError.self) { try ReportParser.parse(Array(whole.dropLast(3))) }
    }

    @Test func nestingTenThousandLevelsDeepNeverTraps() throws {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let bytes = Self.report(frames: "[{\"instruction_addr\": 4096, \"extra\": \(deep)}]")
        let report = try ReportParser.parse(bytes)
        #expect(report.backtraces[0].frames.count == 1)
        let open = Self.report(
            frames: "[{\"instruction_addr\": 4096, \"extra\": " + String(repeating: "[", count: 10_000))
        #expect(throws: SymbolicateError.self) { try ReportParser.parse(open) }
    }
}
