// SampleParser: the output of macOS's `sample` tool (`sample PID`, Activity Monitor's Sample
// Process, Report Version 7): header fields, a call graph of one sample tree per thread, and
// Binary Images. A call-graph node reads
//
//     +   2397 ???  (in HoldApp)  load address 0x10cd17000 + 0x3e30  [0x10cd1ae30]
//     +     2397 start  (in dyld) + 462  [0x111e8b51e]  dyldMain.cpp:42
//
// tree marks (`+ ! : |`) and indentation, the sample count, the symbol (`???` when sample had
// none), the image, the offset (in the symbol, or from the image's load address), the address,
// and the source line when sample knew it. The symbol column runs from the symbol to the end of
// the line, so the writer can put the whole node in sample's own symbolicated form; the inline
// lines an earlier symbolication wrote after a node are levels of it, not nodes (SampleTree).
// Lines of the summary sections (`Sort by top of stack`) have no address and are left as they are.

import SymbolicateModel

enum SampleParser {
    /// True when `bytes` is `sample` output rather than a crash report (one that quotes a
    /// sample stays a crash report). Only whole lines count, so the answer is the same for the
    /// document once its frames are rewritten.
    static func isSample(_ bytes: [UInt8]) -> Bool {
        isSample(FormatSniffer.LineOpenings(bytes))
    }

    /// The line openings `isSample` asks about.
    static let openings = ["Analysis of sampling ", "Exception Type:", "Incident Identifier:"]

    /// `isSample` of a document whose line openings are `lines`.
    static func isSample(_ lines: FormatSniffer.LineOpenings) -> Bool {
        lines.contains("Analysis of sampling ") && !lines.contains("Exception Type:")
            && !lines.contains("Incident Identifier:")
    }

    static func parse(_ bytes: [UInt8]) throws -> CrashReport {
        var report = CrashReport(format: .sample, original: bytes)
        var trees: [(name: String, nodes: [SampleTreeNode])] = []
        enum Section { case header, callGraph, summary, images }
        var section = Section.header
        for line in ByteText.lines(bytes) {
            let trimmed = ByteText.trim(bytes, line.range)
            guard !trimmed.isEmpty else { continue }
            let text = ByteText.string(bytes, trimmed)
            if text == "Call graph:" {
                section = .callGraph
                continue
            }
            if text == "Binary Images:" {
                section = .images
                continue
            }
            switch section {
            case .header:
                if let field = TextReportParser.headerField(bytes, line.range) { report.fields.append(field) }
            case .callGraph:
                if let node = node(bytes, line.range) {
                    if trees.isEmpty { trees.append(("samples", [])) }
                    trees[trees.count - 1].nodes.append(node)
                } else if let thread = threadName(text) {
                    trees.append((thread, []))
                } else if text.hasPrefix("Total number in stack") || text.hasPrefix("Sort by top of stack") {
                    section = .summary
                }
            case .summary:
                continue
            case .images:
                if let image = BinaryImageLine.parse(bytes, line.range) { report.images.append(image) }
            }
        }
        guard !trees.isEmpty || !report.images.isEmpty else {
            throw SymbolicateError(.badInput, "`sample` output without a call graph or binary images")
        }
        for (number, tree) in trees.enumerated() where !tree.nodes.isEmpty {
            report.backtraces.append(SampleTree.backtrace(tree.nodes, in: bytes, number: number, name: tree.name))
        }
        ImageResolver(report.images).resolve(&report.backtraces)
        if let codeType = report.field("Code Type") { report.arch = Arch(codeType: codeType) }
        return report
    }

    /// The lines of `Sort by top of stack` that name a pc by address (`???  (in IMAGE)  load
    /// address 0xBASE + 0xOFFSET  [0xADDRESS]        COUNT`): the range from `???` to the address
    /// (the writer names it), the image and the address. They are not frames of their own: each
    /// repeats a leaf of the call graph.
    static func topOfStackLines(_ bytes: [UInt8]) -> [(column: Range<Int>, image: String, address: UInt64)] {
        var out: [(column: Range<Int>, image: String, address: UInt64)] = []
        var inSection = false
        for line in ByteText.lines(bytes) {
            let t = ByteText.trim(bytes, line.range)
            let text = ByteText.string(bytes, t)
            if text.hasPrefix("Sort by top of stack") {
                inSection = true
                continue
            }
            guard inSection else { continue }
            if text == "Binary Images:" { break }
            guard text.hasPrefix("???  (in "), let located = imageAndAddress(bytes, t) else { continue }
            out.append(
                (t.lowerBound..<located.addressEnd, ByteText.string(bytes, located.image), located.address))
        }
        return out
    }

    /// `2397 Thread_16614365   DispatchQueue_1: ...` without its count; nil for other lines.
    static func threadName(_ text: String) -> String? {
        let rest = text.drop { $0 == " " }.drop { $0.isNumber }
        guard rest.first == " " else { return nil }
        let name = rest.drop { $0 == " " }
        return name.hasPrefix("Thread_") ? String(name) : nil
    }

    /// One call-graph node; nil for any other line. Runs of spaces may be single spaces (text
    /// that passed through a tool that collapses them).
    static func node(_ bytes: [UInt8], _ line: Range<Int>) -> SampleTreeNode? {
        let t = ByteText.trim(bytes, line)
        var i = line.lowerBound
        while i < t.upperBound, bytes[i] == 0x20 || isMark(bytes[i]) { i += 1 }
        let countStart = i
        while i < t.upperBound, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
        guard i > countStart, i < t.upperBound, bytes[i] == 0x20 else { return nil }
        while i < t.upperBound, bytes[i] == 0x20 { i += 1 }
        let symbolStart = i
        guard let located = imageAndAddress(bytes, symbolStart..<t.upperBound) else { return nil }
        let symbol = ByteText.string(bytes, ByteText.trim(bytes, symbolStart..<located.symbolEnd))
        guard !symbol.isEmpty else { return nil }
        var frame = Frame(
            number: 0, imageName: ByteText.string(bytes, located.image), address: located.address,
            isReturnAddress: false, symbolColumn: symbolStart..<t.upperBound)
        if symbol != "???" {
            // Between the image and the address: ` + OFFSET`, `  load address ...` or nothing;
            // after the address, perhaps `  File.m:12`.
            let between = ByteText.string(bytes, ByteText.trim(bytes, located.between))
            let source = ByteText.string(bytes, ByteText.trim(bytes, located.addressEnd..<t.upperBound))
            var described = symbol
            if between.hasPrefix("+ ") { described += " " + between }
            if !source.isEmpty {
                described += " (" + source + ")"
            } else if between.hasPrefix("("), between.hasSuffix(")") {
                described += " " + between
            }
            SampleTree.describe(&frame, symbol: described)
        }
        return SampleTreeNode(line: line, indent: countStart - line.lowerBound, frame: frame)
    }

    /// Where the parts of a node sit from its symbol on (`SYMBOL (in IMAGE) ... [0xADDRESS]...`):
    /// the end of the symbol, the image name (parentheses inside it balanced), what stands
    /// between the image and the address, the address and where its bracket closes.
    private static func imageAndAddress(_ bytes: [UInt8], _ range: Range<Int>) -> (
        symbolEnd: Int, image: Range<Int>, between: Range<Int>, address: UInt64, addressEnd: Int
    )? {
        guard let open = ByteText.lastRange(of: " [0x", in: bytes, range) else { return nil }
        var close = open.upperBound
        while close < range.upperBound, bytes[close] != UInt8(ascii: "]") { close += 1 }
        guard close < range.upperBound, let address = ByteText.hexAddress(bytes, (open.lowerBound + 2)..<close),
            let inImage = ByteText.lastRange(of: " (in ", in: bytes, range.lowerBound..<open.lowerBound)
        else { return nil }
        guard
            let imageEnd = bytes[inImage.upperBound..<open.lowerBound].firstUnbalanced(
                UInt8(ascii: ")"), openedBy: UInt8(ascii: "("))
        else { return nil }
        return (inImage.lowerBound, inImage.upperBound..<imageEnd, (imageEnd + 1)..<open.lowerBound, address, close + 1)
    }

    /// The marks `sample` draws down the tree's levels: `+ ! : |`.
    private static func isMark(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "+") || byte == UInt8(ascii: "!") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "|")
    }
}
