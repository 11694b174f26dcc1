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
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
