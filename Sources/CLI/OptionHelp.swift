// A command's OPTIONS block, written from its option declarations: one entry per option, its
// spellings and value name on the left, its help wrapped in a column on the right (or under
// it, when the spellings are long). The rest of a help text is written by hand in each command.

enum OptionHelp {
    /// The longest line the block is wrapped to.
    static let width = 100
    /// Entries whose spellings are longer than this put their help on the next line.
    static let widestInlineLabel = 24

    /// `-o, --output OUT` for an option, `--dry-run` for a flag.
    static func label(_ spec: OptionSpec) -> String {
        spec.names.joined(separator: ", ") + (spec.valueName.map { " " + $0 } ?? "")
    }

    /// The help of one option as written under OPTIONS (a repeatable option says so).
    static func text(_ spec: OptionSpec) -> String {
        spec.repeatable ? spec.help + " Repeatable." : spec.help
    }

    /// The lines of the OPTIONS block (without the heading), each indented by two spaces.
    static func block(_ options: [any CommandOption]) -> String {
        let specs = options.map(\.spec)
        let labelWidth = min(specs.map { label($0).count }.max() ?? 0, widestInlineLabel)
        let column = 2 + labelWidth + 2
        let indent = String(repeating: " ", count: column)
        var lines: [String] = []
        for spec in specs {
            let name = "  " + label(spec)
            let wrapped = wrap(text(spec), width: width - column)
            guard let first = wrapped.first else {
                lines.append(name)
                continue
            }
            if name.count + 2 <= column {
                lines.append(name + String(repeating: " ", count: column - name.count) + first)
            } else {
                lines.append(name)
                lines.append(indent + first)
            }
            lines += wrapped.dropFirst().map { indent + $0 }
        }
        return lines.joined(separator: "\n")
    }

    /// `text`'s words in lines of at most `width` characters (a longer word gets a line of its own).
    /// Works on the UTF-8 bytes, a character being a byte that does not continue another: the
    /// generic `split` and `count` of String cost more than the rest of `--help` together.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line: [UInt8] = []
        var lineWidth = 0
        var word: [UInt8] = []
        var wordWidth = 0
        func endWord() {
            guard !word.isEmpty else { return }
            if line.isEmpty {
                line = word
                lineWidth = wordWidth
            } else if lineWidth + 1 + wordWidth <= width {
                line.append(UInt8(ascii: " "))
                line += word
                lineWidth += 1 + wordWidth
            } else {
                lines.append(String(decoding: line, as: UTF8.self))
                line = word
                lineWidth = wordWidth
            }
            word.removeAll(keepingCapacity: true)
            wordWidth = 0
        }
        for byte in text.utf8 {
            if byte == UInt8(ascii: " ") {
                endWord()
            } else {
                word.append(byte)
                if byte & 0xC0 != 0x80 { wordWidth += 1 }
            }
        }
        endWord()
        if !line.isEmpty { lines.append(String(decoding: line, as: UTF8.self)) }
        return lines
    }

    /// `text` followed by spaces up to `width` characters (not cut when longer).
    static func padded(_ text: String, to width: Int) -> String {
        let count = text.utf8.reduce(0) { $0 + ($1 & 0xC0 != 0x80 ? 1 : 0) }
        return count >= width ? text : text + String(repeating: " ", count: width - count)
    }
}
