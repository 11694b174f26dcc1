// MicrostackshotParser: Apple's resource reports (`Event: cpu usage`, `disk writes`, `wakeups`,
// TestFlight CPU kills; `Data Source: Microstackshots`), with or without a one-line JSON header,
// and the other reports spindump writes the same way: hang reports and its process sections
// (each process with its own threads, Binary Images and `Architecture:`, so a line's image is the
// one its own process loaded where its offset says, and each process's images have that process's
// arch: one spindump can hold x86_64, x86_64h and arm64e processes).
// Their call stacks are sample trees, one line per node:
//
//     10  ??? (libsystem_pthread.dylib + 6956) [0x1d95d9b2c]
//       10  ??? (App + 1630896) [0x1044ae2b0]
//
// indentation for depth, the sample count, the symbol (`???` until symbolicated), the image
// (by name, or `<UUID>`) and offset, and the absolute address. Each tree (the heaviest stack,
// each process's or thread's tree) becomes a `.sampleTree` backtrace. A node with children is a
// return address and a leaf is a pc; the heaviest stack is one chain, outermost first, so only its
// last line is a pc. The symbol column of each line is recorded so the writer replaces `???` in
// place and keeps the indentation, count and `(Image + offset) [address]` part. The inline lines
// an earlier symbolication wrote after a node (the same line but for the symbol) are levels of
// that node, not nodes (SampleTree).

import SymbolicateModel

enum MicrostackshotParser {
    /// True when the text from `offset` is a resource report, a hang report or spindump
    /// process sections rather than a crash report.
    static func isMicrostackshot(_ bytes: [UInt8], from offset: Int) -> Bool {
        let head = offset == 0 ? bytes : Array(bytes[min(offset, bytes.count)...])
        return isMicrostackshot(head, FormatSniffer.LineOpenings(head))
    }

    /// The line openings `isMicrostackshot` asks about.
    static let openings = [
        "Data Source:", "Event:", "Powerstats for:", "Heaviest stack", "Num samples:", "Thread 0x", "Binary Images:",
        "Exception Type:",
    ]

    /// `isMicrostackshot` of `bytes` (from its start), whose line openings are `lines`.
    static func isMicrostackshot(_ bytes: [UInt8], _ lines: FormatSniffer.LineOpenings) -> Bool {
        // Whole lines only, as FormatSniffer.textRefusal reads crash-report keys: words in a
        // sample line's symbol column are gone once it is rewritten.
        if lines.contains("Data Source:"),
            FormatSniffer.hasLine(bytes, startingWith: "Data Source:", containing: "Microstackshots")
        {
            return true
        }
        if lines.contains("Event:") && (lines.contains("Powerstats for:") || lines.contains("Heaviest stack")) {
            return true
        }
        // spindump's process sections (`Process:`, `Num samples:`, threads, `Binary Images:`).
        return lines.contains("Num samples:") && lines.contains("Thread 0x") && lines.contains("Binary Images:")
            && !lines.contains("Exception Type:")
    }

    /// One sample line: the line, its indentation, count, symbol column, image token and offset,
    /// address.
    struct SampleLine {
        var line: Range<Int>
        var indent: Int
        var count: String
        var symbol: Range<Int>
        var image: String
        var offset: UInt64
        var address: UInt64
        /// An indented line inside a tree that does not read as a sample: kept as a placeholder.
        var isDamaged = false
    }

    /// Parses `<indent>[*]COUNT  SYMBOL (IMAGE + OFFSET) [0xADDR]`; nil for any other line.
    static func sampleLine(_ bytes: [UInt8], _ line: Range<Int>) -> SampleLine? {
        let t = ByteText.trim(bytes, line)
        guard t.count >= 12, bytes[t.upperBound - 1] == UInt8(ascii: "]") else { return nil }
        var i = t.lowerBound
        if bytes[i] == UInt8(ascii: "*") { i += 1 }
        let countStart = i
        while i < t.upperBound, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
        guard i > countStart, i < t.upperBound, bytes[i] == 0x20 else { return nil }
        let count = ByteText.string(bytes, countStart..<i)
        while i < t.upperBound, bytes[i] == 0x20 { i += 1 }
        // The address: `[0x...]` at the end.
        var open = t.upperBound - 1
        while open > i, bytes[open] != UInt8(ascii: "[") { open -= 1 }
        guard open > i, let address = ByteText.hexAddress(bytes, (open + 1)..<(t.upperBound - 1)) else { return nil }
        // `(IMAGE + OFFSET)` before it.
        var close = open - 1
        while close > i, bytes[close] == 0x20 { close -= 1 }
        guard close > i, bytes[close] == UInt8(ascii: ")") else { return nil }
        guard let paren = bytes[i..<close].lastUnbalanced(UInt8(ascii: "("), closedBy: UInt8(ascii: ")")), paren > i
        else { return nil }
        // IMAGE + OFFSET: the offset is the digits after the last ` + `.
        var plus = close - 1
        while plus > paren, bytes[plus] >= 0x30, bytes[plus] <= 0x39 { plus -= 1 }
        guard plus - 2 > paren, bytes[plus] == 0x20, bytes[plus - 1] == UInt8(ascii: "+"), bytes[plus - 2] == 0x20,
            let offset = ByteText.decimal(bytes, (plus + 1)..<close)
        else { return nil }
        let symbol = ByteText.trim(bytes, i..<paren)
        guard !symbol.isEmpty else { return nil }
        return SampleLine(
            line: line, indent: ByteText.trim(bytes, line).lowerBound - line.lowerBound, count: count, symbol: symbol,
            image: ByteText.string(bytes, (paren + 1)..<(plus - 2)), offset: offset, address: address)
    }

    static func parse(_ bytes: [UInt8], from offset: Int, format: ReportFormat, jsonHeader: String?) throws
        -> CrashReport
    {
        var report = CrashReport(format: format, original: bytes, jsonHeader: jsonHeader)
        var trees: [(name: String, lines: [SampleLine], isChain: Bool, section: Int)] = []
        var current: (name: String, lines: [SampleLine], isChain: Bool, section: Int)? = nil
        // Process sections: 0 is what comes before the first `Process:` line (a report's header,
        // a hang report's heaviest stack), each `Process:` line starts the next.
        var section = 0
        var sectionArchs: [Int: Arch] = [:]
        var imageSections: [Int] = []
        var inImages = false
        var title: String? = nil
        var chainNext = false

        func finish() {
            if let c = current, !c.lines.isEmpty { trees.append(c) }
            current = nil
        }

        for line in ByteText.lines(bytes, from: offset) {
            let trimmed = ByteText.trim(bytes, line.range)
            if trimmed.isEmpty {
                finish()
                continue
            }
            let text = ByteText.string(bytes, trimmed)
            if text.hasPrefix("Binary Images") && text.hasSuffix(":") {
                finish()
                inImages = true
                continue
            }
            if inImages, let image = BinaryImageLine.parse(bytes, line.range) {
                var image = resourceImage(image)
                image.arch = image.arch ?? sectionArchs[section]
                report.images.append(image)
                imageSections.append(section)
                continue
            }
            if let sample = sampleLine(bytes, line.range) {
                if current == nil {
                    current = (title ?? "samples", [], chainNext, section)
                    chainNext = false
                }
                current?.lines.append(sample)
                continue
            }
            if current != nil, isElision(text) { continue }
            // An indented line inside a tree that does not read as a sample (a stray byte in its
            // count, symbol or address) is skipped, not taken as the tree's end: the heaviest
            // stack stays one chain, so the frames after it keep their return-address rule.
            if current != nil, line.range.lowerBound < trimmed.lowerBound {
                // Its indentation as printed: control bytes (the stray ones) count as nothing.
                var first = line.range.lowerBound
                while first < line.range.upperBound, bytes[first] <= 0x20 { first += 1 }
                let indent = (line.range.lowerBound..<first).filter { bytes[$0] == 0x20 || bytes[$0] == 0x09 }.count
                current?.lines.append(
                    SampleLine(
                        line: line.range, indent: indent, count: "",
                        symbol: trimmed.lowerBound..<trimmed.lowerBound, image: "", offset: 0, address: 0,
                        isDamaged: true))
                continue
            }
            finish()
            inImages = false
            if text.hasPrefix("Heaviest stack") {
                title = String(text.dropLast(text.hasSuffix(":") ? 1 : 0))
                chainNext = true
            } else if text.hasPrefix("Thread 0x") || text.hasPrefix("Thread ") {
                title = text
            } else if let field = TextReportParser.headerField(bytes, line.range) {
                report.fields.append(field)
                switch field.key {
                case "Powerstats for": title = "Powerstats for: \(field.value)"
                case "Process": section += 1
                case "Architecture": sectionArchs[section] = sectionArchs[section] ?? Arch(field.value)
                default: break
                }
            }
        }
        finish()

        for (number, tree) in trees.enumerated() {
            let nodes = tree.lines.map { sample in
                if sample.isDamaged {
                    return SampleTreeNode(
                        line: sample.line, indent: sample.indent,
                        frame: Frame(number: 0, address: 0, isReturnAddress: false),
                        isPlaceholder: true)
                }
                var frame = Frame(
                    number: 0, imageName: sample.image, address: sample.address, isReturnAddress: false,
                    symbolColumn: sample.symbol)
                frame.imageIndex = imageIndex(
                    for: sample, section: tree.section, arch: sectionArchs[tree.section], in: &report.images,
                    sections: &imageSections)
                SampleTree.describe(&frame, symbol: ByteText.string(bytes, sample.symbol))
                return SampleTreeNode(line: sample.line, indent: sample.indent, frame: frame)
            }
            report.backtraces.append(
                SampleTree.backtrace(nodes, in: bytes, number: number, name: tree.name, isChain: tree.isChain))
        }
        if let arch = report.field("Architecture") { report.arch = Arch(arch) }
        return report
    }

    /// A node spindump prints where it cut a stack, `1000  <patched truncated backtrace>`: not a
    /// frame, but the tree goes on below it (the node above it keeps its children).
    static func isElision(_ text: String) -> Bool {
        let rest = text.drop { $0 == "*" }.drop { $0.isNumber }
        return rest.count < text.count && rest.hasPrefix(" ") && rest.drop { $0 == " " }.hasPrefix("<")
            && rest.hasSuffix(">")
    }

    /// `Name 1.0 (1) <UUID> /path` lists the version before the build: the name loses it.
    private static func resourceImage(_ image: BinaryImage) -> BinaryImage {
        var image = image
        guard image.version != nil, let space = image.name.lastIndex(of: " ") else { return image }
        let last = image.name[image.name.index(after: space)...]
        guard let first = last.first, first.isNumber else { return image }
        image.version = "\(last) (\(image.version ?? ""))"
        image.name = String(image.name[..<space])
        return image
    }

    /// The image a sample line names, by `<UUID>` or by name in Binary Images (the name listed,
    /// or the file name of its path: spindump lists `com.apple.CoreFoundation` for the
    /// `CoreFoundation` of its sample lines): the one loaded at address - offset (spindump lists
    /// each process's images, and two processes can load one image at two addresses), else the
    /// first of that name; among those, first the ones the line's own process section lists
    /// (`sections` holds each image's section: two processes can load two builds of one name
    /// at one address, an x86_64 one and an arm64e one); else a new image of the section's
    /// `arch`, loaded at address - offset (with the UUID when the line gives one).
    private static func imageIndex(
        for sample: SampleLine, section: Int, arch: Arch?, in images: inout [BinaryImage], sections: inout [Int]
    ) -> Int? {
        var uuid: BuildID? = nil
        if sample.image.hasPrefix("<"), sample.image.hasSuffix(">") {
            uuid = BuildID(reported: sample.image.dropFirst().dropLast())
        }
        let base = sample.offset <= sample.address ? sample.address - sample.offset : nil
        let named = { (image: BinaryImage) in
            uuid.map { image.uuid == $0 }
                ?? (image.name == sample.image || image.path.flatMap(PathParts.last) == sample.image)
        }
        let loaded = { (image: BinaryImage) in named(image) && image.loadAddress == base }
        if let i = images.indices.first(where: { sections[$0] == section && loaded(images[$0]) })
            ?? images.firstIndex(where: loaded)
        {
            return i
        }
        if let i = images.indices.first(where: { sections[$0] == section && named(images[$0]) })
            ?? images.firstIndex(where: named)
        {
            return i
        }
        guard let base else { return nil }
        images.append(BinaryImage(loadAddress: base, name: uuid?.uuidString ?? sample.image, arch: arch, uuid: uuid))
        sections.append(section)
        return images.count - 1
    }
}
