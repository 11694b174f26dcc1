// SwiftBacktraceParser: the Swift runtime's own crash report in its text form, as
// `SWIFT_BACKTRACE=enable=yes,format=text` writes it on Linux: `*** Program crashed: ... ***`,
// `Thread N "name" crashed:` headers, frame lines `N [ra] [MARK] 0xADDR [SYMBOL + OFF in IMAGE at
// FILE:LINE:COL]`, `...` for omitted frames, and an `Images (N omitted):` list of
// `0xLOW–0xEND BUILDID NAME PATH` lines (U+2013 between the addresses, `<no build ID>` for an
// image without one). Only `[ra]` frames are return addresses; `[async]` resume points and the
// program counter are looked up as they are. An image's first address is its lowest mapping,
// which ELF files know as their first PT_LOAD, so frames are looked up from there. A line in a
// backtrace with an unknown mark or no address is kept as a malformed frame; `[inlined]` lines an
// earlier run wrote are levels of the frame after them.

import SymbolicateModel

enum SwiftBacktraceParser {
    /// The line the runtime opens its report with.
    static let crashLine = "*** Program crashed:"
    /// The marks a frame line may carry between its number and its address.
    static let marks: Set<String> = ["[ra]", "[inlined]", "[async]", "[system]", "[thunk]"]

    /// True when a line of the document opens with the runtime's crash line.
    static func isSwiftBacktrace(_ bytes: [UInt8]) -> Bool {
        isSwiftBacktrace(FormatSniffer.LineOpenings(bytes))
    }

    /// `isSwiftBacktrace` of a document whose line openings are `lines`.
    static func isSwiftBacktrace(_ lines: FormatSniffer.LineOpenings) -> Bool {
        lines.contains(crashLine)
    }

    static func parse(_ bytes: [UInt8]) throws -> CrashReport {
        var fields: [HeaderField] = []
        var backtraces: [Backtrace] = []
        var images: [BinaryImage] = []
        var arch: Arch?
        var inImages = false
        var current: Backtrace?
        var levelStart: Int?
        for line in ByteText.lines(bytes) {
            let t = ByteText.trim(bytes, line.range)
            let text = ByteText.string(bytes, t)
            if text.hasPrefix("Platform:") {
                let value = text.dropFirst("Platform:".count).trimmingCharacters(in: " ")
                fields.append(HeaderField(key: "Platform", value: value))
                arch = value.split(separator: " ").first.map { Self.arch(String($0)) }
                continue
            }
            if text.hasPrefix(crashLine) {
                fields.append(HeaderField(key: "Program crashed", value: text))
                continue
            }
            if text.hasPrefix("Thread "), text.hasSuffix(":") {
                if let current { backtraces.append(current) }
                current = thread(text)
                inImages = false
                continue
            }
            if text.hasPrefix("Images"), text.hasSuffix(":") {
                if let c = current { backtraces.append(c) }
                current = nil
                inImages = true
                continue
            }
            if text.hasPrefix("Registers:") || text.hasPrefix("Backtrace took") {
                if let c = current { backtraces.append(c) }
                current = nil
                inImages = false
                continue
            }
            if inImages {
                if let image = image(bytes, t) { images.append(image) }
                continue
            }
            guard current != nil, !t.isEmpty else { continue }
            let tokens = ByteText.tokens(bytes, t, limit: 8)
            guard let first = tokens.first, let number = ByteText.decimal(bytes, first).flatMap({ Int(exactly: $0) })
            else { continue }
            var kinds: [String] = []
            var addressToken: Range<Int>?
            for token in tokens.dropFirst() {
                let word = ByteText.string(bytes, token)
                if word.hasPrefix("[") {
                    kinds.append(word)
                    continue
                }
                addressToken = token
                break
            }
            if let a = addressToken, ByteText.string(bytes, a) == "..." {
                levelStart = nil
                continue  // omitted or truncated frames: no frame
            }
            let address = addressToken.flatMap { ByteText.hexAddress(bytes, $0) }
            if kinds.contains("[inlined]"), address != nil {
                if levelStart == nil { levelStart = line.range.lowerBound }
                continue
            }
            var frame = Frame(
                number: number, address: address ?? 0, isReturnAddress: kinds.contains("[ra]"),
                isMalformed: address == nil || kinds.contains { !marks.contains($0) })
            if let a = addressToken, address != nil {
                frame.symbolColumn = a.upperBound..<t.upperBound
                let rest = ByteText.trim(bytes, a.upperBound..<t.upperBound)
                if !rest.isEmpty { frame.symbol = ByteText.string(bytes, rest) }
            }
            if let start = levelStart { frame.levelLines = start..<line.range.lowerBound }
            levelStart = nil
            current?.frames.append(frame)
        }
        if let current { backtraces.append(current) }
        guard !images.isEmpty else {
            throw SymbolicateError(
                .badInput,
                "Swift runtime crash report without an Images list (cut short, or written with images=none):"
                    + " nothing to match its frames to")
        }
        for i in images.indices { images[i].arch = arch }
        return CrashReport(
            format: .swiftBacktrace, original: bytes, fields: fields, backtraces: backtraces, images: images,
            arch: arch)
    }

    /// The arch as ELF files name it: the runtime writes `arm64` where ELF says `aarch64`.
    static func arch(_ name: String) -> Arch {
        name == "arm64" ? Arch("aarch64") : Arch(name)
    }

    /// `Thread N "name" crashed:`, `Thread N:`.
    static func thread(_ text: String) -> Backtrace {
        let body = text.dropFirst("Thread ".count).dropLast()
        let crashed = body.hasSuffix(" crashed")
        let number = body.split(separator: " ").first.flatMap { Int($0) }
        var name: String?
        if let open = body.firstIndex(of: "\""), let close = body.lastIndex(of: "\""), open < close {
            name = String(body[body.index(after: open)..<close])
        }
        return Backtrace(kind: .thread, number: number, name: name, crashed: crashed)
    }

    /// `0xLOW–0xEND BUILDID NAME PATH`, the build id `<no build ID>` for an image without one.
    static func image(_ bytes: [UInt8], _ t: Range<Int>) -> BinaryImage? {
        let text = ByteText.string(bytes, t)
        let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return nil }
        let range = parts[0].split(whereSeparator: { $0 == "\u{2013}" || $0 == "-" }).map(String.init)
        guard range.count == 2, let low = ASCII.unsignedInteger(string: range[0]),
            let end = ASCII.unsignedInteger(string: range[1]), end >= low
        else { return nil }
        var rest = Substring(parts[1])
        var uuid: BuildID?
        if rest.hasPrefix("<no build ID>") {
            rest = rest.dropFirst("<no build ID>".count)
        } else {
            let id = rest.prefix { $0 != " " }
            uuid = BuildID(reported: id)
            rest = rest.dropFirst(id.count)
        }
        let nameAndPath = rest.trimmingCharacters(in: " ")
        let name = String(nameAndPath.prefix { $0 != " " })
        let path = nameAndPath.dropFirst(name.count).trimmingCharacters(in: " ")
        return BinaryImage(
            loadAddress: low, size: end - low, name: name, uuid: uuid, path: path.isEmpty ? nil : path)
    }
}
