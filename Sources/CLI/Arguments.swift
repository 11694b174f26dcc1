// A small, strict argument parser: options in any order, `--opt value` and `--opt=value`,
// repeated options, `--` to end options, `-` as a positional (stdin/stdout). It knows only the
// options the command declares (Option.swift), so an unknown option is a usage error rather
// than a silent no-op, and values are read back through the same declarations, typed.

struct Arguments {
    /// The texts given for each valued option, by canonical spelling, in order.
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    private(set) var positionals: [String] = []

    init(_ arguments: [String], options: [any CommandOption]) throws {
        var declared: [String: OptionSpec] = [:]
        for option in options {
            for name in option.spec.names { declared[name] = option.spec }
        }
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
            guard let spec = declared[name] else { throw UsageError("unknown option \(arg)") }
            if spec.takesValue {
                if let inlineValue {
                    values[spec.canonical, default: []].append(inlineValue)
                } else {
                    guard i < arguments.count else { throw UsageError("option \(arg) needs a value") }
                    values[spec.canonical, default: []].append(arguments[i])
                    i += 1
                }
            } else {
                guard inlineValue == nil else { throw UsageError("option \(spec.canonical) takes no value") }
                flags.insert(spec.canonical)
            }
        }
    }

    /// Whether the option was given at all, with or without a value.
    func given(_ option: some CommandOption) -> Bool {
        flags.contains(option.spec.canonical) || values[option.spec.canonical] != nil
    }

    func has(_ flag: FlagOption) -> Bool { flags.contains(flag.spec.canonical) }

    /// The last value given (later ones win, as in most Unix tools), as written.
    private func text<Value>(_ option: ValueOption<Value>) -> String? { values[option.spec.canonical]?.last }

    /// The last value given, converted; nil when the option is absent.
    func value<Value>(_ option: ValueOption<Value>) throws -> Value? {
        try text(option).map(option.convert)
    }

    /// Every value given, in order, converted.
    func values<Value>(_ option: RepeatedOption<Value>) throws -> [Value] {
        try (values[option.spec.canonical] ?? []).map(option.convert)
    }
}
