// Symbolicates the shared corpus reports that have matching dSYMs and checks every frame of an
// image with symbols against llvm-symbolizer at the adjusted address (load address and
// __TEXT vmaddr applied, return addresses minus one). Skips when ../shared is absent.

import Foundation
import Reports
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

struct CorpusCase: CustomStringConvertible, Sendable {
    var report: String
    var dsyms: [String]
    var description: String { report }
}

let corpusCases: [CorpusCase] = [
    CorpusCase(
        report: "inket__MacSymbolicator/Resources/Crashes/ios-crash.crash",
        dsyms: ["inket__MacSymbolicator/Resources/dSYMs/iOSCrashingTest.app.dSYM"]),
    CorpusCase(
        report: "inket__MacSymbolicator/Resources/Crashes/ios-crash.ips",
        dsyms: ["inket__MacSymbolicator/Resources/dSYMs/iOSCrashingTest.app.dSYM"]),
    CorpusCase(
        report: "inket__MacSymbolicator/Resources/Other/ios-crash-with-json-header.crash",
        dsyms: ["inket__MacSymbolicator/Resources/dSYMs/iOSCrashingTest.app.dSYM"]),
    CorpusCase(
        report: "inket__MacSymbolicator/Resources/Crashes/single-target-crash.crash",
        dsyms: ["inket__MacSymbolicator/Resources/dSYMs/CrashingTest.dSYM"]),
    CorpusCase(
        report: "inket__MacSymbolicator/Resources/Crashes/single-target-crash.ips",
        dsyms: ["inket__MacSymbolicator/Resources/dSYMs/CrashingTest.dSYM"]),
    CorpusCase(
        report: "inket__MacSymbolicator/Resources/Crashes/multi-target-crash.crash",
        dsyms: [
            "inket__MacSymbolicator/Resources/dSYMs/CrashingInAnotherTargetTest.dSYM",
            "inket__MacSymbolicator/Resources/dSYMs/AnotherTarget.framework.dSYM",
        ]),
    CorpusCase(
        report: "inket__MacSymbolicator/Resources/Crashes/multi-target-crash.ips",
        dsyms: ["inket__MacSymbolicator/Resources/dSYMs"]),
]

@Suite(.tags(.corpus, .slow)) struct CorpusSymbolicationTests {
    @Test(.needsCorpus, .needsReferee, arguments: corpusCases)
    func framesMatchLLVMSymbolizer(_ testCase: CorpusCase) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Paths.corpus + "/" + testCase.report)))
        let locator = try SymbolPathLocator(paths: testCase.dsyms.map { Paths.corpus + "/" + $0 })
        let processed = try SymbolicationService(locator: locator).process(bytes, format: nil)
        let checked = try SymbolicationCheck.compare(processed, locator: locator)
        #expect(checked > 0, "no frame of \(testCase.report) had symbols")
        #expect(processed.outcome.symbolicatedFrames >= checked)
    }
}

/// Compares every symbolicated frame of a processed report with llvm-symbolizer; returns how
/// many frames were checked. Frames of images whose UUID the locator has must be symbolicated.
enum SymbolicationCheck {
    static func compare(_ processed: ProcessedReport, locator: SymbolPathLocator) throws -> Int {
        let report = processed.report
        let builds = Dictionary(grouping: locator.buildsInPaths, by: \.uuid)
        var checked = 0
        for (b, backtrace) in report.backtraces.enumerated() {
            for (f, frame) in backtrace.frames.enumerated() {
                guard let image = report.image(for: frame), let uuid = image.uuid,
                    let build = builds[uuid]?.max(by: { $0.kind < $1.kind })
                else { continue }
                let result = processed.outcome.results[FrameID(backtrace: b, frame: f)]
                guard let vmaddr = try Referee.textVMAddress(build.path, arch: build.arch.rawValue) else {
                    Issue.record("llvm-objdump found no __TEXT in \(build.path)")
                    continue
                }
                var address = frame.address & 0x0000_7FFF_FFFF_FFFF
                address = address - image.loadAddress + vmaddr
                if frame.isReturnAddress || backtrace.kind == .lastException { address -= 1 }
                let expected =
                    try Referee.symbolize(build.path, arch: build.arch.rawValue, addresses: [address])
                    .first ?? []
                if expected.isEmpty {
                    #expect(result?.status != .symbolicated, "llvm-symbolizer has nothing at \(address)")
                    continue
                }
                let ours = (result?.frames ?? []).map {
                    SymbolizerLevel(function: $0.rawSymbol ?? $0.symbol, file: $0.file ?? "", line: $0.line ?? 0)
                }
                #expect(ours == expected, "frame \(frame.number) of backtrace \(b) at 0x\(String(address, radix: 16))")
                checked += 1
            }
        }
        return checked
    }
}
