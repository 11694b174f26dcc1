// MetricKit payloads over the Samples (Samples/diagnostics, written by make_diagnostics.py from a
// sample report): every HoldApp / HoldKit frame is checked against llvm-symbolizer under the
// MetricKit address rules (per thread: the root is the pc; aggregated: leaves are pcs), the load
// addresses against build/images.tsv (also for the payload whose offsets hold load addresses),
// and the enriched JSON against the original: App Store Connect's keys added, every original
// line kept in order. The corpus payloads (Meter, sentry-cocoa) are read with every frame, and
// hostile payloads (10,000 frames deep, no UUIDs, offsets past the image, absurd counts) never trap.

import Foundation
import Reports
import SymbolicateModel
import Symbolication
import Synchronization
import TestSupport
import Testing

enum Diagnostics {
    static let folder = Paths.samples + "/diagnostics"
    static let payloads = ["HoldApp-metrickit.json", "HoldApp-metrickit-array.json", "HoldApp-callstacktree.json"]
    static var available: Bool { FileManager.default.fileExists(atPath: folder + "/HoldApp-metrickit.json") }

    static func bytes(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
    }

    static func process(_ name: String, format: OutputFormat? = nil) throws -> (ProcessedReport, SymbolPathLocator) {
        let locator = try SymbolPathLocator(paths: [Paths.samples + "/build"])
        return (try SymbolicationService(locator: locator).process(try bytes(name), format: format), locator)
    }

    /// The load address the samples give each image (build/images.tsv, ios-arm64-dwarf5).
    static func sampleLoads() throws -> [String: UInt64] {
        let tsv = try String(contentsOfFile: Paths.samples + "/build/images.tsv", encoding: .utf8)
        var out: [String: UInt64] = [:]
        for line in tsv.split(separator: "\n") where line.hasPrefix("ios-arm64-dwarf5\t") {
            let cols = line.split(separator: "\t")
            out[String(cols[1])] = UInt64(cols[6].dropFirst(2), radix: 16)
        }
        return out
    }

    /// Every frame object of a MetricKit document read with Foundation, in document order, with
    /// whether it is a pc under MetricKit's rules (independent of our parser).
    static func frames(_ bytes: [UInt8]) throws -> [(frame: [String: Any], isPC: Bool)] {
        let root = try JSONSerialization.jsonObject(with: Data(bytes))
        var trees: [[String: Any]] = []
        func collect(_ value: Any) {
            if let array = value as? [Any] { array.forEach(collect) }
            guard let object = value as? [String: Any] else { return }
            if object["callStacks"] != nil {
                trees.append(object)
                return
            }
            for key in [
                "crashDiagnostics", "hangDiagnostics", "cpuExceptionDiagnostics", "diskWriteExceptionDiagnostics",
                "appLaunchDiagnostics",
            ] {
                for d in object[key] as? [[String: Any]] ?? [] {
                    if let tree = d["callStackTree"] as? [String: Any] { trees.append(tree) }
                }
            }
        }
        collect(root)
        var out: [(frame: [String: Any], isPC: Bool)] = []
        for tree in trees {
            let perThread = tree["callStackPerThread"] as? Bool ?? true
            for stack in tree["callStacks"] as? [[String: Any]] ?? [] {
                var pending: [([String: Any], Int)] = (stack["callStackRootFrames"] as? [[String: Any]] ?? [])
                    .reversed().map { ($0, 0) }
                while let (frame, depth) = pending.popLast() {
                    let subs = frame["subFrames"] as? [[String: Any]] ?? []
                    out.append((frame, perThread ? depth == 0 : subs.isEmpty))
                    pending += subs.reversed().map { ($0, depth + 1) }
                }
            }
        }
        return out
    }
}

@Suite(.enabled(if: Diagnostics.available, "Samples/diagnostics is absent (run Samples/generate.sh)"))
struct MetricKitTests {
    @Test(.needsReferee, arguments: Diagnostics.payloads)
    func framesMatchLLVMSymbolizer(_ name: String) throws {
        let (processed, locator) = try Diagnostics.process(name, format: .json)
        #expect(processed.report.format == .metricKit)
        let truth = try Diagnostics.frames(try Diagnostics.bytes(name))
        let frames = processed.report.backtraces.flatMap(\.frames)
        #expect(frames.count == truth.count)
        let loads = try Diagnostics.sampleLoads()
        for (frame, expected) in zip(frames, truth) {
            #expect(frame.address == expected.frame["address"] as? UInt64)
            #expect(frame.isReturnAddress == !expected.isPC, "frame at 0x\(String(frame.address, radix: 16))")
            if let image = processed.report.image(for: frame), let load = loads[image.name] {
                #expect(image.loadAddress == load, "\(image.name) load address")
            }
        }
        let checked = try SymbolicationCheck.compare(processed, locator: locator)
        #expect(checked >= 10, "only \(checked) frames checked")
        // Every frame of an image with symbols and a UUID is symbolicated.
        for (b, backtrace) in processed.report.backtraces.enumerated() {
            for (f, frame) in backtrace.frames.enumerated() {
                guard let image = processed.report.image(for: frame), image.name.hasPrefix("Hold"), image.uuid != nil
                else { continue }
                #expect(processed.outcome.results[FrameID(backtrace: b, frame: f)]?.status == .symbolicated)
            }
        }
    }

    @Test func enrichedPayloadAddsAppStoreConnectKeysAndKeepsEveryLine() throws {
        let name = "HoldApp-metrickit.json"
        let (processed, _) = try Diagnostics.process(name)
        #expect(processed.format == .ips && processed.contentType == "application/json")
        let original = String(decoding: try Diagnostics.bytes(name), as: UTF8.self)
        let output = String(decoding: processed.output, as: UTF8.self)
        let added = ["\"symbolName\"", "\"offsetIntoSymbol\"", "\"fileName\"", "\"lineNumber\"", "\"inlineFrames\""]
        func lines(_ s: String) -> [String] {
            s.split(separator: "\n").map { String($0.hasSuffix(",") ? $0.dropLast() : $0[...]) }
        }
        let kept = lines(output).filter { line in !added.contains { line.trimmingCharacters(in: " ").hasPrefix($0) } }
        #expect(kept == lines(original))

        // Each symbolicated frame object holds the outermost level; inline levels innermost first.
        let enriched = try Diagnostics.frames(processed.output)
        let frames = processed.report.backtraces.flatMap(\.frames)
        var ids: [FrameID] = []
        for (b, backtrace) in processed.report.backtraces.enumerated() {
            ids += backtrace.frames.indices.map { FrameID(backtrace: b, frame: $0) }
        }
        var sawInline = false
        for ((frame, _), id) in zip(enriched, ids) {
            guard let result = processed.outcome.results[id], result.status == .symbolicated,
                let outer = result.frames.last
            else {
                #expect(frame["symbolName"] == nil)
                continue
            }
            #expect(frame["symbolName"] as? String == outer.symbol)
            #expect(frame["offsetIntoSymbol"] as? UInt64 == outer.symbolOffset)
            #expect(frame["fileName"] as? String == outer.fileName)
            #expect(frame["lineNumber"] as? Int == outer.line)
            let inline = frame["inlineFrames"] as? [[String: Any]] ?? []
            #expect(inline.map { $0["symbolName"] as? String } == result.frames.dropLast().map(\.symbol))
            #expect(inline.map { $0["lineNumber"] as? Int } == result.frames.dropLast().map(\.line))
            sawInline = sawInline || !inline.isEmpty
        }
        #expect(sawInline, "no frame of the sample has inlined functions")
        #expect(frames.count == enriched.count)
    }

    @Test func compactArrayKeepsItsStyleAndTheQuirkPayloadResolves() throws {
        let (processed, _) = try Diagnostics.process("HoldApp-metrickit-array.json")
        let output = String(decoding: processed.output, as: UTF8.self)
        #expect(output.contains(",\"symbolName\":\"closure #1 in ViewController.viewDidLoad()\""))
        #expect(!output.contains(" : "))
        // The second payload's offsets are load addresses; its frames resolve the same way.
        let crashes = processed.report.backtraces.enumerated().filter { $0.element.name == "crashDiagnostics[0]" }
        #expect(crashes.count == 4)
        let quirk = Array(crashes.suffix(2))
        for (b, backtrace) in quirk {
            for (f, frame) in backtrace.frames.enumerated() where frame.imageName?.hasPrefix("Hold") == true {
                let status = processed.outcome.results[FrameID(backtrace: b, frame: f)]?.status
                let hasUUID = processed.report.image(for: frame)?.uuid != nil
                #expect(status == (hasUUID ? .symbolicated : .missingSymbol))
            }
        }
        // The frame without a binaryUUID is kept, unsymbolicated, and the rest goes on.
        #expect(processed.report.images.contains { $0.uuid == nil && $0.name == "HoldKit" })
    }

    @Test func textFormatShowsThreadsAndTrees() throws {
        let (processed, _) = try Diagnostics.process("HoldApp-metrickit.json", format: .crash)
        let text = String(decoding: processed.output, as: UTF8.self)
        #expect(text.contains("Exception Type:      EXC_BAD_ACCESS (SIGSEGV)"))
        #expect(text.contains("Call stack 0 (attributed thread):"))
        #expect(text.contains("Call stack tree 0 (sample count, frame):"))
        let lines = text.split(separator: "\n")
        #expect(
            lines.contains {
                $0.hasPrefix("4   HoldApp") && $0.contains("closure #1 in ViewController.viewDidLoad() + ")
            })
        // Tree lines: indentation, count, symbol, then the image and address part.
        #expect(lines.contains { $0.hasPrefix("  7  main + ") && $0.hasSuffix(" (HoldApp + 17504) [0x102bc8460]") })
        // Inline levels of a tree node read callers first, like the tree: outermost, then inward.
        var sawInline = false
        for (id, result) in processed.outcome.results where result.frames.count > 1 {
            let frame = processed.report.backtraces[id.backtrace].frames[id.frame]
            guard processed.report.backtraces[id.backtrace].kind == .sampleTree else { continue }
            let tail = " [0x" + String(frame.address, radix: 16) + "]"
            let levels = lines.filter { $0.hasSuffix(tail) }.map { $0.trimmingCharacters(in: .whitespaces) }
            let names = result.frames.reversed().map { ReportWriter.symbolColumn($0) }
            let firstRun = Array(levels.prefix(names.count)).map { String($0.drop { $0 != " " }.dropFirst(2)) }
            #expect(zip(firstRun, names).allSatisfy { $0.hasPrefix($1) }, "\(firstRun) against \(names)")
            sawInline = true
        }
        #expect(sawInline, "no tree node of the sample has inlined functions")
    }

    @Test func jsonFormatGivesStatuses() throws {
        let (processed, _) = try Diagnostics.process("HoldApp-callstacktree.json", format: .json)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(processed.output)) as? [String: Any])
        #expect(json["format"] as? String == "metrickit")
        let backtraces = json["backtraces"] as? [[String: Any]] ?? []
        #expect(backtraces.first?["kind"] as? String == "sample-tree")
        #expect(processed.outcome.symbolicatedFrames > 0)
    }
}

@Suite(.tags(.corpus), .needsCorpus)
struct MetricKitCorpusTests {
    static let files = [
        "ChimeHQ__Meter/Tests/MeterTests/Resources/real_report.json",
        "ChimeHQ__Meter/Tests/MeterTests/Resources/ios_uncaugh_exception_payload.json",
        "ChimeHQ__Meter/Tests/MeterTests/Resources/xcode_simulated.json",
        "ChimeHQ__Meter/Tests/MeterTests/Resources/xcode_simulated_macOS_12.json",
        "ChimeHQ__Meter/Tests/MeterTests/Resources/xcode_simulated_macOS_13.json",
        "getsentry__sentry-cocoa/Tests/Resources/MetricKitCallstacks/not-per-thread.json",
        "getsentry__sentry-cocoa/Tests/Resources/MetricKitCallstacks/per-thread.json",
        "getsentry__sentry-cocoa/Tests/Resources/MetricKitCallstacks/tree-real.json",
    ]

    @Test(arguments: files)
    func everyFrameIsRead(_ file: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Paths.corpus + "/" + file)))
        let truth = try Diagnostics.frames(bytes)
        let processed = try SymbolicationService(locator: try SymbolPathLocator(paths: [])).process(
            bytes, format: nil)
        #expect(processed.report.frameCount == truth.count)
        #expect(processed.outcome.totalFrames == truth.count)
        for (frame, expected) in zip(processed.report.backtraces.flatMap(\.frames), truth) {
            let image = try #require(processed.report.image(for: frame))
            #expect(image.uuid?.uuidString == expected.frame["binaryUUID"] as? String)
            let offset = try #require(expected.frame["offsetIntoBinaryTextSegment"] as? UInt64)
            #expect(frame.address - image.loadAddress <= offset)
            #expect(frame.isReturnAddress == !expected.isPC)
        }
        // Without symbols the document comes back byte for byte.
        #expect(processed.output == bytes)
    }

    /// Meter's real_report.json holds load addresses in offsetIntoBinaryTextSegment.
    @Test func absoluteAddressQuirkIsDetected() throws {
        let file = "ChimeHQ__Meter/Tests/MeterTests/Resources/real_report.json"
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Paths.corpus + "/" + file)))
        let report = try ReportParser.parse(bytes)
        let truth = try Diagnostics.frames(bytes)
        for (frame, expected) in zip(report.backtraces.flatMap(\.frames), truth) {
            let image = try #require(report.image(for: frame))
            #expect(image.loadAddress == expected.frame["offsetIntoBinaryTextSegment"] as? UInt64)
            #expect(frame.address - image.loadAddress < 0x1000_0000)
        }
    }
}

@Suite struct MetricKitHostileInputTests {
    static func frame(
        _ address: UInt64, offset: UInt64, uuid: String? = "4C4C44AA-5555-3144-A1C9-3105F2834F44",
        count: String = "1"
    ) -> String {
        var s = "{"
        if let uuid { s += "\"binaryUUID\":\"\(uuid)\"," }
        s +=
            "\"offsetIntoBinaryTextSegment\":\(offset),\"sampleCount\":\(count),\"binaryName\":\"HoldKit\",\"address\":\(address)"
        return s
    }

    @Test func tenThousandFramesDeepNeverTrap() throws {
        let depth = 10_000
        var text = "{\"callStackPerThread\":true,\"callStacks\":[{\"threadAttributed\":true,\"callStackRootFrames\":["
        for i in 0..<depth {
            text += Self.frame(0x1_030a_40ac + UInt64(i % 50), offset: 16556 + UInt64(i % 50))
            text += i + 1 < depth ? ",\"subFrames\":[" : "}"
        }
        text += String(repeating: "]}", count: depth - 1) + "]}]}"
        let bytes = Array(text.utf8)
        let locator = try SymbolPathLocator(paths: [Paths.samples + "/build"])
        let service = SymbolicationService(locator: locator)
        // On a thread with a server-sized stack (512 KiB): nothing may recurse per frame.
        let result = Mutex<Result<ProcessedReport, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            result.withLock { $0 = Result { try service.process(bytes, format: nil) } }
            done.signal()
        }
        thread.stackSize = 512 << 10
        thread.start()
        done.wait()
        let processed = try #require(try result.withLock { $0 }?.get())
        #expect(processed.outcome.totalFrames == depth)
        #expect(processed.report.backtraces.first?.frames.first?.isReturnAddress == false)
        #expect(processed.report.backtraces.first?.frames.last?.isReturnAddress == true)
        let json = try SymbolicationService(locator: locator).process(bytes, format: .json)
        #expect(json.outcome.totalFrames == depth)
    }

    @Test func framesWithoutUUIDsPastTheImageOrWithAbsurdCountsAreKept() throws {
        let frames = [
            Self.frame(0x1_030a_40ac, offset: 16556, uuid: nil),
            Self.frame(0x1_030a_40ac + 0x4000_0000, offset: 16556 + 0x4000_0000),
            Self.frame(0x1_030a_40ac, offset: 0x1_2030_a40ad),
            Self.frame(0x1_030a_40ac, offset: 16556, count: "1e308"),
            Self.frame(0x1_030a_40ac, offset: 16556, count: "-99999999999999999999999"),
            Self.frame(0x1_030a_40ac, offset: 16556, uuid: "not-a-uuid"),
        ].map { $0 + "}" }
        let text =
            "{\"callStackPerThread\":false,\"callStacks\":[{\"callStackRootFrames\":[" + frames.joined(separator: ",")
            + "]}]}"
        let locator = try SymbolPathLocator(paths: [Paths.samples + "/build"])
        let service = SymbolicationService(locator: locator)
        let processed = try service.process(Array(text.utf8), format: .json)
        let statuses = (0..<6).map { processed.outcome.results[FrameID(backtrace: 0, frame: $0)]?.status }
        #expect(statuses == [.missingSymbol, .missingSymbol, .malformed, .symbolicated, .symbolicated, .missingSymbol])
        for format in [OutputFormat.crash, .ips] {
            let out = try service.process(Array(text.utf8), format: format)
            #expect(!out.output.isEmpty)
        }
    }

    @Test func jsonOfAnotherKindIsStillRefusedByName() throws {
        for text in ["{\"timeStampBegin\":\"x\",\"cpuMetrics\":{}}", "{\"hello\":1}", "[1,2,3]"] {
            #expect(throws: SymbolicateError.self) { try ReportParser.parse(Array(text.utf8)) }
        }
        let malformed = "{\"crashDiagnostics\":[{\"callStackTree\":{\"callStacks\":[{"
        do {
            _ = try ReportParser.parse(Array(malformed.utf8))
            Issue.record("malformed payload accepted")
        } catch let error as SymbolicateError {
            #expect(error.code == .badInput)
            #expect(error.message.contains("MetricKit"))
        }
    }
}
