// A small, strict argument parser: options in any order, `--opt value` and `--opt=value`,
// repeated options, `--` to end options, `-` as a positional (stdin/stdout). Every command
// declares what it accepts, so an unknown option is a usage error rather than a silent no-op.

struct Arguments {
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []

    /// `valued`: options that take a value (e.g. ["-o", "--output"]); `flagNames`: options without.
    /// `aliases` maps alternative spellings to the canonical one (e.g. "--output": "-o").
    init(
        _ arguments: [String], valued: Set<String>, flags flagNames: Set<String>, aliases: [String: String] = [:]
    ) throws {
        var i = 0
        var onlyPositionals = false
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if onlyPositionals || arg == "-" || !arg.hasPrefix("-") {
                positionals.append(arg)
                continue
            }
            if arg == "--" {
                onlyPositionals = true
                continue
            }
            var name = arg
            var inlineValue: String? = nil
            if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                inlineValue = String(arg[arg.index(after: eq)...])
            }
            name = aliases[name] ?? name
            if valued.contains(name) {
                if let inlineValue {
                    values[name, default: []].append(inlineValue)
                } else {
                    guard i < arguments.count else { throw UsageError("option \(arg) needs a value") }
                    values[name, default: []].append(arguments[i])
                    i += 1
                }
            } else if flagNames.contains(name) {
                guard inlineValue == nil else { throw UsageError("option \(name) takes no value") }
                flags.insert(name)
            } else {
                throw UsageError("unknown option \(arg)")
            }
        }
    }

    func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// The last value given for an option (later ones win, as in most Unix tools).
    func value(_ name: String) -> String? { values[name]?.last }

    func all(_ name: String) -> [String] { values[name] ?? [] }

    func integer(_ name: String) throws -> Int? {
        guard let v = value(name) else { return nil }
        guard let n = Int(v) else { throw UsageError("\(name) expects a whole number, got '\(v)'") }
        return n
    }

    /// The whole number `name` holds, or nil when it is absent; a usage error saying
    /// `requirement` when it lies outside `range`.
    func integer(_ name: String, in range: ClosedRange<Int>, _ requirement: String) throws -> Int? {
        guard let n = try integer(name) else { return nil }
        guard range.contains(n) else { throw UsageError(requirement) }
        return n
    }
}

/// Parses `0x1a2b`, `1a2b` (hex when it has hex letters or a 0x prefix) or decimal digits.
func parseAddress(_ text: String) -> UInt64? {
    var t = Substring(text)
    if t.hasPrefix("0x") || t.hasPrefix("0X") {
        t = t.dropFirst(2)
        return UInt64(t, radix: 16)
    }
    if let decimal = UInt64(t) { return decimal }
    return UInt64(t, radix: 16)
}
