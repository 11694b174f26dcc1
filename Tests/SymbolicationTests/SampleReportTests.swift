// macOS `sample` output over the Samples (Samples/diagnostics/HoldApp-sample.txt, the x86_64
// simulator build) and over the real samples in ../shared/corpus: every call-graph node is a
// frame (leaves pcs, inner nodes return addresses), HoldApp / HoldKit frames match
// llvm-symbolizer, and each `???` node is rewritten in place in the form `sample` prints a node
// it has symbols for, keeping the line's tree marks and count; every other line is unchanged.

import Foundation
import Reports
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

enum SampleOutput {
    static let name = "HoldApp-sample.txt"
    static let node = try! NSRegularExpression(pattern: #"^([ +!:|]*)(\d+) (.+) \(in ([^)]+)\).* \[0x([0-9a-f]+)\]"#)

    static func process(_ bytes: [UInt8], paths: [String]) throws -> (ProcessedReport, SymbolPathLocator) {
        let locator = try SymbolPathLocator(paths: paths)
        return (try SymbolicationService(locator: locator).process(bytes, format: nil), locator)
    }

    /// The call-graph nodes of `text`, read with a regex (independent of the parser): the line,
    /// its address, and whether it is a pc (the next line is not a deeper node).
    static func nodes(_ text: String) -> [(line: String, address: UInt64, isPC: Bool)] {
        let lines = text.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "Call graph:") else { return [] }
        let end = lines[start...].firstIndex { $0.hasPrefix("Total number in stack") } ?? lines.count
        func match(_ line: String) -> (depth: Int, address: UInt64)? {
            guard let m = node.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
                let address = UInt64((line as NSString).substring(with: m.range(at: 5)), radix: 16)
            else { return nil }
            return (m.range(at: 1).length, address)
        }
        var out: [(line: String, address: UInt64, isPC: Bool)] = []
        for i in (start + 1)..<end {
            guard let this = match(lines[i]) else { continue }
            let next = i + 1 < end ? match(lines[i + 1]) : nil
            out.append((lines[i], this.address, (next?.depth).map { $0 <= this.depth } ?? true))
        }
        return out
    }

    /// True when `output` is `original` with some `???` nodes named: every other line is kept, in
    /// order, and a named node keeps its marks, count, image and address, followed by the lines
    /// of its inlined levels with the same marks and count. Answers the number of named nodes.
    static func namedInPlace(original: String, output: String) -> Int? {
        let before = original.components(separatedBy: "\n")
        let after = output.components(separatedBy: "\n")
        var k = 0
        var named = 0
        for line in before {
            guard k < after.count else { return nil }
            if after[k] == line {
                k += 1
                continue
            }
            if let q = line.range(of: "???  (in "), line[..<q.lowerBound].allSatisfy({ $0 == " " }),
                let image = line[q.upperBound...].split(separator: ")").first,
                let count = line.split(separator: " ").last,
                after[k].hasPrefix(line[..<q.lowerBound]), after[k].hasSuffix("  (in \(image))        \(count)")
            {
                // A `Sort by top of stack` line: the function at that pc, then the count.
                k += 1
                named += 1
                continue
            }
            guard let q = line.range(of: "???  (in "),
                let m = node.firstMatch(in: line, range: NSRange(line.startIndex..., in: line))
            else { return nil }
            let head = String(line[..<q.lowerBound])
            let image = (line as NSString).substring(with: m.range(at: 4))
            let address = "[0x" + (line as NSString).substring(with: m.range(at: 5)) + "]"
            guard after[k].hasPrefix(head), !after[k].hasPrefix(head + "???"),
                after[k].contains("  (in \(image)) + "), after[k].contains("  \(address)")
            else { return nil }
            k += 1
            while k < after.count, after[k].hasPrefix(head), after[k].contains("  (in \(image))  \(address)") { k += 1 }
            named += 1
        }
        return k == after.count ? named : nil
    }
}

@Suite(.enabled(if: Diagnostics.available, "Samples/diagnostics is absent (run Samples/generate.sh)"))
struct SampleReportTests {
    static let paths = [Paths.samples + "/build/sim-x86_64-dwarf4"]

    @Test(.needsReferee)
    func everyNodeIsAFrameUnderTheTreeRules() throws {
        let bytes = try Diagnostics.bytes(SampleOutput.name)
        let (processed, locator) = try SampleOutput.process(bytes, paths: Self.paths)
        #expect(processed.report.format == .sample)
        #expect(processed.report.arch == .x86_64)
        let truth = SampleOutput.nodes(String(decoding: bytes, as: UTF8.self))
        let frames = processed.report.backtraces.flatMap(\.frames)
        #expect(frames.count == truth.count && truth.count >= 12)
        for (frame, expected) in zip(frames, truth) {
            #expect(frame.address == expected.address, "\(expected.line)")
            #expect(frame.isReturnAddress == !expected.isPC, "\(expected.line)")
        }
        let checked = try SymbolicationCheck.compare(processed, locator: locator)
        #expect(checked == frames.filter { ["HoldApp", "HoldKit"].contains($0.imageName) }.count && checked >= 10)
    }

    @Test func questionMarksAreNamedInPlace() throws {
        let bytes = try Diagnostics.bytes(SampleOutput.name)
        let (processed, _) = try SampleOutput.process(bytes, paths: Self.paths)
        let output = String(decoding: processed.output, as: UTF8.self)
        let named = SampleOutput.namedInPlace(original: String(decoding: bytes, as: UTF8.self), output: output)
        #expect(named == 12 + 3, "12 call-graph nodes and the 3 pcs of Sort by top of stack")
        // The pc in inlined code: the function it is in, then each inlined level down to the
        // innermost, every line with the node's marks, count and address, as the tree reads.
        let pc = try #require(processed.report.backtraces[0].frames.first { !$0.isReturnAddress })
        let id = try #require(
            processed.outcome.results.keys.first { processed.report.backtraces[$0.backtrace].frames[$0.frame] == pc })
        let chain = try #require(processed.outcome.results[id]?.frames)
        #expect(chain.count >= 2)
        // (The `Sort by top of stack` line of the same address has no symbols and stays as it was.)
        let lines = output.components(separatedBy: "\n").filter {
            $0.contains("  [0x" + String(pc.address, radix: 16) + "]") && !$0.contains("load address")
        }
        #expect(lines.count == chain.count)
        for (line, level) in zip(lines, chain.reversed()) {
            #expect(line.contains(" \(level.symbol)  (in HoldKit)"), "\(line)")
            if let file = level.fileName, let number = level.line { #expect(line.hasSuffix("  \(file):\(number)")) }
        }
        #expect(lines.first?.contains(") + ") == true, "the outermost level keeps its offset")
    }
}

/// The real `sample` reports of the corpus whose dSYMs are beside them, with the symbolicated
/// copies their project wrote (atos at each address as printed, so its lines for return
/// addresses are the line after the call; llvm-symbolizer at address - 1 is the referee for lines).
@Suite(.tags(.corpus), .needsCorpus, .needsReferee)
struct CorpusSampleTests {
    static let folder = "inket__MacSymbolicator/Resources"
    static let cases = [
        ("Samples/singlethread-sample.txt", "dSYMs/SingleThreadHangingTest.dSYM"),
        ("Samples/multithread-sample.txt", "dSYMs/MultiThreadHangingTest.dSYM"),
    ]

    @Test(arguments: cases)
    func namedAsTheirProjectNamesThemWithTheRefereesLines(report: String, dsym: String) throws {
        let root = Paths.corpus + "/" + Self.folder + "/"
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: root + report)))
        let (processed, locator) = try SampleOutput.process(bytes, paths: [root + dsym])
        #expect(processed.report.format == .sample)
        let checked = try SymbolicationCheck.compare(processed, locator: locator)
        #expect(checked >= 2)
        let output = String(decoding: processed.output, as: UTF8.self)
        let named = SampleOutput.namedInPlace(original: String(decoding: bytes, as: UTF8.self), output: output)
        #expect(named == checked, "every app node named (their tops of stack are system frames)")
        // Their symbolicated copy names the same functions at the same addresses.
        let theirs = try String(
            contentsOfFile: root + report.replacingOccurrences(of: ".txt", with: "_symbolicated.txt"), encoding: .utf8)
        let function = try NSRegularExpression(pattern: #"\d+ (.+?) \(in [^)]+\) \(.+:\d+\) \[0x([0-9a-f]+)\]"#)
        var compared = 0
        for line in theirs.components(separatedBy: "\n") {
            guard let m = function.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) else { continue }
            let name = (line as NSString).substring(with: m.range(at: 1))
            let address = (line as NSString).substring(with: m.range(at: 2))
            #expect(output.contains(" \(name)  (in "), "\(name)")
            #expect(
                output.components(separatedBy: "\n").contains {
                    $0.contains(" \(name)  (in ") && $0.contains("[0x\(address)]")
                })
            compared += 1
        }
        #expect(compared == checked)
    }
}

/// spindump's process sections (Samples/diagnostics/HoldApp-spindump.txt): the app and an app
/// extension that loads HoldKit at another address, each frame symbolicated against the HoldKit
/// its own process loads; a `<patched truncated backtrace>` node inside a tree.
@Suite(.enabled(if: Diagnostics.available, "Samples/diagnostics is absent (run Samples/generate.sh)"))
struct SpindumpReportTests {
    @Test(.needsReferee)
    func eachProcessUsesItsOwnImages() throws {
        let bytes = try Diagnostics.bytes("HoldApp-spindump.txt")
        let (processed, locator) = try SampleOutput.process(bytes, paths: SampleReportTests.paths)
        #expect(processed.report.format == .microstackshot)
        #expect(processed.report.backtraces.count == 3)
        let holdKit = processed.report.backtraces.flatMap(\.frames).filter { $0.imageName == "HoldKit" }
        #expect(
            Set(holdKit.compactMap { processed.report.image(for: $0)?.loadAddress }) == [0x1_030a_0000, 0x1_0456_0000])
        let checked = try SymbolicationCheck.compare(processed, locator: locator)
        #expect(checked == 15, "the app's 11 HoldApp and HoldKit frames and the extension's 4")
        #expect(processed.outcome.results.values.filter { $0.status == .symbolicated }.count == 15)
        // The same HoldKit calls in both processes get the same names (the app's last one has a
        // kernel frame below it and is a return address there, the extension's is its pc).
        let names = { (base: UInt64) in
            holdKit.filter { processed.report.image(for: $0)?.loadAddress == base }.map { frame in
                processed.outcome.results.first { id, _ in
                    processed.report.backtraces[id.backtrace].frames[id.frame] == frame
                }?.value.frames.map(\.symbol) ?? []
            }
        }
        #expect(names(0x1_0456_0000).prefix(3) == names(0x1_030a_0000).prefix(3))
        #expect(names(0x1_0456_0000).count == 4 && names(0x1_0456_0000)[0] == ["hk_codec_run"])
    }
}
