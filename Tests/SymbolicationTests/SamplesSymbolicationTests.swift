// Symbolicates every report in Samples/reports with Samples/build as the symbol path and checks
// each frame against llvm-symbolizer (DWARF 4 and 5, arm64 and x86_64, universal, arm64e with
// pointer-authentication bits), plus the rules that are not lookups: a UUID mismatch is never
// used, --no-inline keeps only the outermost function, --no-adjust looks return addresses up as
// they are, and `.ips` output keeps its keys.

import Foundation
import Reports
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

enum Samples {
    static var reports: [String] {
        let dir = Paths.samples + "/reports"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.filter { $0.hasSuffix(".crash") || $0.hasSuffix(".ips") }.sorted()
    }

    static func process(_ name: String, format: OutputFormat? = nil, options: SymbolicationOptions = .init()) throws
        -> (ProcessedReport, SymbolPathLocator)
    {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Paths.samples + "/reports/" + name)))
        let locator = try SymbolPathLocator(paths: [Paths.samples + "/build"])
        return (try SymbolicationService(locator: locator, options: options).process(bytes, format: format), locator)
    }
}

@Suite(.tags(.slow)) struct SamplesSymbolicationTests {
    @Test(.needsReferee, arguments: Samples.reports)
    func framesMatchLLVMSymbolizer(_ name: String) throws {
        let (processed, locator) = try Samples.process(name)
        let checked = try SymbolicationCheck.compare(processed, locator: locator)
        #expect(checked >= 5, "only \(checked) frames of \(name) were checked")
    }

    @Test func uuidMismatchIsReportedAndNeverUsed() throws {
        let (processed, _) = try Samples.process("HoldApp-uuid-mismatch.crash")
        let app = try #require(processed.outcome.images.first { $0.image.name == "HoldApp" })
        guard case .uuidMismatch(let found, _, _) = app.status else {
            Issue.record("HoldApp status is \(app.status)")
            return
        }
        #expect(found != app.image.uuid)
        #expect(app.framesSymbolicated == 0)
        #expect(processed.outcome.missing.contains { $0.name == "HoldApp" })
    }

    @Test func pointerAuthenticationBitsAreStripped() throws {
        let (processed, _) = try Samples.process("HoldApp-arm64e-pac.ips")
        let leb = try #require(processed.report.backtraces.firstIndex { $0.kind == .lastException })
        let frames = processed.report.backtraces[leb].frames
        let pac = try #require(frames.firstIndex { $0.address > 0x0000_7FFF_FFFF_FFFF })
        #expect(processed.outcome.results[FrameID(backtrace: leb, frame: pac)]?.status == .symbolicated)
    }

    /// An `.ips` is a header line and a body, two JSON texts, which a JSON parser refuses as a
    /// whole: its answer is labelled text, and only what is one JSON text is labelled JSON.
    @Test func anIpsAnswerIsNotLabelledJSON() throws {
        let (ips, _) = try Samples.process("HoldApp-ios-arm64-dwarf5.ips")
        #expect(ips.format == .ips)
        #expect((try? JSONSerialization.jsonObject(with: Data(ips.output))) == nil)
        #expect(ips.contentType == "text/plain; charset=utf-8")
        let (json, _) = try Samples.process("HoldApp-ios-arm64-dwarf5.ips", format: .json)
        #expect((try? JSONSerialization.jsonObject(with: Data(json.output))) != nil)
        #expect(json.contentType == "application/json")
    }

    /// The JSON answer's `report` object: the summary the web page shows, with the exception's
    /// type alone beside the whole exception, the same from a text report and from its `.ips`.
    @Test(arguments: ["HoldApp-ios-arm64-dwarf5.crash", "HoldApp-ios-arm64-dwarf5.ips"])
    func theJSONAnswerSummarizesTheReport(_ name: String) throws {
        let (json, _) = try Samples.process(name, format: .json)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output)) as? [String: Any])
        let report = try #require(object["report"] as? [String: Any])
        #expect(report["app"] as? String == "HoldApp" && report["version"] as? String == "1.2 (12)")
        #expect(report["crashed_thread"] as? Int == 0)
        let type = try #require(report["exception_type"] as? String)
        #expect(type.hasPrefix("EXC_") && !type.contains(","), "\(type)")
        #expect((report["exception"] as? String)?.hasPrefix(type) == true)
    }

    @Test func noInlineKeepsOnlyTheOutermostFunction() throws {
        let (full, _) = try Samples.process("HoldApp-ios-arm64-dwarf5.crash")
        let (flat, _) = try Samples.process(
            "HoldApp-ios-arm64-dwarf5.crash", options: SymbolicationOptions(inlines: false))
        var sawInline = false
        for (id, result) in full.outcome.results where result.status == .symbolicated {
            let outer = try #require(result.frames.last)
            #expect(flat.outcome.results[id]?.frames == [outer])
            sawInline = sawInline || result.frames.count > 1
        }
        #expect(sawInline, "the sample has no inlined frame")
    }

    @Test func noAdjustLooksReturnAddressesUpAsTheyAre() throws {
        let (adjusted, locator) = try Samples.process("HoldApp-ios-arm64-dwarf5.crash")
        let (raw, _) = try Samples.process(
            "HoldApp-ios-arm64-dwarf5.crash", options: SymbolicationOptions(adjustReturnAddresses: false))
        let builds = Dictionary(grouping: locator.buildsInPaths.filter { $0.kind == .debugInfo }, by: \.uuid)
        var compared = 0
        for (b, backtrace) in raw.report.backtraces.enumerated() {
            for (f, frame) in backtrace.frames.enumerated() where frame.isReturnAddress {
                guard let image = raw.report.image(for: frame), let uuid = image.uuid,
                    let build = builds[uuid]?.first,
                    let vmaddr = try Referee.textVMAddress(build.path, arch: build.arch.rawValue)
                else { continue }
                let address = frame.address - image.loadAddress + vmaddr
                let expected = try Referee.symbolize(build.path, arch: build.arch.rawValue, addresses: [address])
                let ours = (raw.outcome.results[FrameID(backtrace: b, frame: f)]?.frames ?? []).map {
                    SymbolizerLevel(function: $0.rawSymbol ?? $0.symbol, file: $0.file ?? "", line: $0.line ?? 0)
                }
                #expect(ours == expected.first ?? [])
                compared += 1
            }
        }
        #expect(compared > 0)
        #expect(adjusted.outcome.symbolicatedFrames == raw.outcome.symbolicatedFrames)
    }

    @Test func ipsOutputKeepsTheDocumentAndAddsSymbols() throws {
        let (processed, _) = try Samples.process("HoldApp-ios-arm64-dwarf5.ips")
        let text = String(decoding: processed.output, as: UTF8.self)
        let original = String(decoding: processed.report.original, as: UTF8.self)
        let firstLine = { (s: String) in s.prefix { $0 != "\n" } }
        #expect(firstLine(text) == firstLine(original))
        #expect(text.contains("\"symbol\""))
        #expect(text.contains("\"sourceLine\""))
        #expect(text.contains("\"inline\""))
        let reparsed = try ReportParser.parse(processed.output)
        #expect(reparsed.images == processed.report.images)
        // The inline objects added are levels of their frame, not frames of their own.
        #expect(reparsed.frameCount == processed.report.frameCount)
    }

    @Test func swiftNamesAreShownAsAppleShowsThem() throws {
        let (processed, _) = try Samples.process("HoldApp-ios-arm64-dwarf5.crash")
        let text = String(decoding: processed.output, as: UTF8.self)
        #expect(text.contains("ViewController.viewDidLoad() + "))
        #expect(text.contains("closure #1 in ViewController.viewDidLoad() + "))
        #expect(text.contains("holdkit::codec::Session<unsigned int>::run(unsigned int) + "))
    }
}

@Suite struct WrongSymbolsTests {
    @Test func aDSYMWithoutTheNeededArchIsAMismatch() throws {
        let bytes = try [UInt8](
            Data(contentsOf: URL(fileURLWithPath: Paths.samples + "/reports/HoldApp-ios-arm64-dwarf5.crash")))
        let locator = try SymbolPathLocator(paths: [Paths.samples + "/build/sim-x86_64-dwarf4"])
        let processed = try SymbolicationService(locator: locator).process(bytes, format: nil)
        let app = try #require(processed.outcome.images.first { $0.image.name == "HoldApp" })
        guard case .uuidMismatch(_, let arch, _) = app.status else {
            Issue.record("HoldApp status is \(app.status)")
            return
        }
        #expect(arch == .x86_64)
        #expect(processed.outcome.symbolicatedFrames == 0)
        #expect(app.summary.contains("uuid-mismatch: found HoldApp with UUID"))
    }

    @Test func damagedDSYMsNeverFailTheReport() throws {
        let source = Paths.samples + "/build/ios-arm64-dwarf5/HoldKit.framework.dSYM/Contents/Resources/DWARF/HoldKit"
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: source)))
        let report = try [UInt8](
            Data(contentsOf: URL(fileURLWithPath: Paths.samples + "/reports/HoldApp-ios-arm64-dwarf5.crash")))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("damaged-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var seed: UInt64 = 7
        var refused = 0
        for round in 0..<24 {
            var bytes = original
            if round % 2 == 0 {
                bytes = Array(bytes.prefix(bytes.count * (round + 1) / 26))
            } else {
                for _ in 0..<32 {
                    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    let i = Int(seed >> 33) % bytes.count
                    bytes[i] ^= UInt8(truncatingIfNeeded: seed >> 13) | 1
                }
            }
            let file = dir.appendingPathComponent("HoldKit-\(round)")
            try Data(bytes).write(to: file)
            let locator = try SymbolPathLocator(paths: [file.path])
            let processed = try SymbolicationService(locator: locator).process(report, format: nil)
            #expect(processed.outcome.totalFrames == 23)
            let kit = processed.outcome.images.first { $0.image.name == "HoldKit" }
            if case .failed(let message) = kit?.status {
                #expect(message.contains(file.lastPathComponent), "the error does not name the file: \(message)")
                refused += 1
            }
            for problem in locator.scanProblems {
                #expect(problem.description.contains(file.lastPathComponent))
                refused += 1
            }
        }
        #expect(refused >= 12, "only \(refused) of 24 damaged copies were refused")
    }
}
