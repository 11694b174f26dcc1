// KSCrash reports over the Samples' build: a KSCrash JSON report is written here from
// build/images.tsv (UUIDs, load addresses) and the HoldApp / HoldKit frame addresses of a sample
// report, as KSCrash writes one (numbers for addresses, `object_addr` naming the image). Every frame
// is checked against llvm-symbolizer, and the written JSON against the input: each symbolicated
// frame gains `symbolicated_name`, `symbolicated_offset`, `source_file`, `source_line` and
// `inlined_frames` beside KSCrash's keys, and nothing else changes.

import Foundation
import Reports
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

enum KSCrashSample {
    static let variant = "ios-arm64-dwarf5"
    static var available: Bool {
        FileManager.default.fileExists(atPath: Paths.samples + "/build/images.tsv")
            && FileManager.default.fileExists(atPath: Paths.samples + "/reports/HoldApp-\(variant).crash")
    }

    /// The sample build's images (name, load address, size, UUID) from build/images.tsv, and
    /// the HoldApp / HoldKit frames of the sample report (address, image name, load address), innermost first.
    static func sample() throws -> (
        images: [(name: String, load: UInt64, size: UInt64, uuid: String)],
        frames: [(address: UInt64, image: String, load: UInt64)]
    ) {
        let tsv = try String(contentsOfFile: Paths.samples + "/build/images.tsv", encoding: .utf8)
        var images: [(name: String, load: UInt64, size: UInt64, uuid: String)] = []
        for line in tsv.split(separator: "\n") where line.hasPrefix(variant + "\t") {
            let c = line.split(separator: "\t").map(String.init)
            let load = try #require(UInt64(c[6].dropFirst(2), radix: 16))
            let size = try #require(UInt64(c[5].dropFirst(2), radix: 16))
            images.append((c[1], load, size, c[3]))
        }
        let loads = Dictionary(images.map { ($0.name, $0.load) }) { a, _ in a }
        let text = try String(contentsOfFile: Paths.samples + "/reports/HoldApp-\(variant).crash", encoding: .utf8)
        var frames: [(address: UInt64, image: String, load: UInt64)] = []
        for line in text.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 3, Int(words[0]) != nil, let load = loads[String(words[1])],
                words[2].hasPrefix("0x"), let address = UInt64(words[2].dropFirst(2), radix: 16)
            else { continue }
            frames.append((address, String(words[1]), load))
        }
        return (images, frames)
    }

    /// A KSCrash report with one thread holding every HoldApp / HoldKit frame of the sample report.
    static func report() throws -> [UInt8] {
        let sample = try sample()
        let images: [[String: Any]] = sample.images.map {
            [
                "image_addr": $0.load, "image_size": $0.size, "name": "/private/var/containers/Bundle/\($0.name)",
                "uuid": $0.uuid, "cpu_type": 16_777_228, "cpu_subtype": 0,
            ]
        }
        let frames: [[String: Any]] = sample.frames.map {
            ["instruction_addr": $0.address, "object_addr": $0.load, "object_name": $0.image]
        }
        let root: [String: Any] = [
            "report": ["id": "B265D762-E427-46FF-BE36-C27F7D3DA0AB", "version": "2.0.0", "type": "standard"],
            "binary_images": images,
            "system": ["cpu_arch": "arm64", "CFBundleExecutablePath": "/private/var/containers/Bundle/HoldApp"],
            "crash": [
                "error": ["type": "signal", "signal": ["signal": 6, "name": "SIGABRT"]],
                "threads": [["index": 0, "crashed": true, "backtrace": ["contents": frames, "skipped": 0]]],
            ],
        ]
        return [UInt8](try JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys]))
    }
}

@Suite(.enabled(if: KSCrashSample.available, "Samples/build or Samples/reports is absent (run Samples/generate.sh)"))
struct KSCrashSymbolicationTests {
    static let added: Set<String> = [
        "symbolicated_name", "symbolicated_offset", "source_file", "source_line", "inlined_frames",
    ]

    static func process(_ bytes: [UInt8]) throws -> (ProcessedReport, SymbolPathLocator) {
        let locator = try SymbolPathLocator(paths: [Paths.samples + "/build"])
        return (try SymbolicationService(locator: locator).process(bytes, format: nil), locator)
    }

    @Test(.needsReferee) func framesMatchLLVMSymbolizer() throws {
        let (processed, locator) = try Self.process(try KSCrashSample.report())
        #expect(processed.report.format == .kscrash)
        let checked = try SymbolicationCheck.compare(processed, locator: locator)
        #expect(checked >= 8, "only \(checked) frames checked")
        for (f, _) in processed.report.backtraces[0].frames.enumerated() {
            #expect(processed.outcome.results[FrameID(backtrace: 0, frame: f)]?.status == .symbolicated)
        }
    }

    @Test func writtenJSONAddsKeysBesideKSCrashsAndKeepsTheRest() throws {
        let input = try KSCrashSample.report()
        let (processed, _) = try Self.process(input)
        #expect(processed.contentType == "application/json")
        let output = try #require(try JSONSerialization.jsonObject(with: Data(processed.output)) as? [String: Any])
        let original = try #require(try JSONSerialization.jsonObject(with: Data(input)) as? [String: Any])
        let outFrames = try KSCrashFrames.read(processed.output)
        let inFrames = try KSCrashFrames.read(input)
        #expect(outFrames.count == inFrames.count)
        var sawInline = false
        for (f, (written, read)) in zip(outFrames, inFrames).enumerated() {
            let result = try #require(processed.outcome.results[FrameID(backtrace: 0, frame: f)])
            let outer = try #require(result.frames.last)
            #expect(written["symbolicated_name"] as? String == outer.symbol)
            #expect((written["symbolicated_offset"] as? NSNumber)?.uint64Value == outer.symbolOffset)
            #expect(written["source_file"] as? String == outer.fileName)
            #expect((written["source_line"] as? NSNumber)?.intValue == outer.line)
            let inline = written["inlined_frames"] as? [[String: Any]] ?? []
            #expect(inline.map { $0["symbolicated_name"] as? String } == result.frames.dropLast().map(\.symbol))
            sawInline = sawInline || !inline.isEmpty
            let kept = written.filter { !Self.added.contains($0.key) }
            #expect(NSDictionary(dictionary: kept).isEqual(to: read))
        }
        #expect(sawInline, "the samples inline functions into HoldApp")
        // Outside the frames, nothing changed.
        var a = output
        var b = original
        a["crash"] = nil
        b["crash"] = nil
        #expect(NSDictionary(dictionary: a).isEqual(to: b))
        // Symbolicated again, the report is the same.
        let (again, _) = try Self.process(processed.output)
        #expect(again.output == processed.output)
    }

    /// A report written here, symbolicated again (a stored report when another dSYM arrives),
    /// comes out as it went in: its added keys are replaced, not added a second time.
    @Test func aReportSymbolicatedTwiceIsWrittenTheSame() throws {
        let (first, _) = try Self.process(try KSCrashSample.report())
        let (second, _) = try Self.process(first.output)
        #expect(second.report.backtraces.map(\.frames.count) == first.report.backtraces.map(\.frames.count))
        #expect(second.output == first.output, "written again differently")
    }
}
