// A command's options, each declared once: its spellings, the name of its value, its help
// line and the type its value converts to. `Arguments` parses with these declarations and
// `OptionHelp` writes a command's OPTIONS block from them, so an option cannot be accepted
// without being listed, or listed without being accepted. A conversion's usage error is thrown
// when a command reads the value, in the order the command reads its options.

/// What parsing and help need of an option, whatever the type of its value.
struct OptionSpec: Sendable {
    /// Every spelling, the canonical one first (`-o`, `--output`); errors name the canonical one.
    var names: [String]
    /// The value's name in help (`DIR`, `N`); nil for an option that takes no value.
    var valueName: String?
    /// Given more than once, every value counts (otherwise the last one wins).
    var repeatable: Bool
    /// One paragraph, wrapped when the help is written.
    var help: String

    var canonical: String { names.first ?? "" }
    var takesValue: Bool { valueName != nil }
}

/// An option a command declares; `spec` is all the parser and the help read.
protocol CommandOption: Sendable {
    var spec: OptionSpec { get set }
}

extension CommandOption {
    /// The same option with `note` appended to its help, for a command where it means a little more.
    func adding(_ note: String) -> Self {
        var copy = self
        copy.spec.help += " " + note
        return copy
    }
}

/// An option without a value: given or not.
struct FlagOption: CommandOption {
    var spec: OptionSpec

    init(_ names: String..., help: String) {
        spec = OptionSpec(names: names, valueName: nil, repeatable: false, help: help)
    }
}

/// An option with one value (the last one given wins), converted to `Value` when read.
struct ValueOption<Value: Sendable>: CommandOption {
    var spec: OptionSpec
    /// Turns the text given into a value; throws `UsageError` saying what is expected.
    let convert: @Sendable (String) throws -> Value

    init(_ names: [String], value: String, help: String, convert: @escaping @Sendable (String) throws -> Value) {
        spec = OptionSpec(names: names, valueName: value, repeatable: false, help: help)
        self.convert = convert
    }
}

/// An option that may be given several times, every value kept in order.
struct RepeatedOption<Value: Sendable>: CommandOption {
    var spec: OptionSpec
    let convert: @Sendable (String) throws -> Value

    /// `option`, accepted more than once.
    init(_ option: ValueOption<Value>) {
        spec = option.spec
        spec.repeatable = true
        convert = option.convert
    }
}

extension ValueOption where Value == String {
    /// A value taken as it is written (a path, a URL, a name).
    init(_ names: String..., value: String, help: String) {
        self.init(names, value: value, help: help) { $0 }
    }
}

extension RepeatedOption where Value == String {
    init(_ names: String..., value: String, help: String) {
        self.init(ValueOption(names, value: value, help: help) { $0 })
    }
}

extension ValueOption where Value == Int {
    /// A whole number in `range`; `requirement` is the usage error for one outside it.
    static func integer(
        _ names: String..., value: String, in range: ClosedRange<Int>, requirement: @escaping @Sendable (Int) -> String,
        help: String
    ) -> Self {
        integer(names, value: value, in: range, requirement: requirement, help: help)
    }

    /// A whole number in `range`; `requirement` is the usage error for one outside it.
    static func integer(
        _ names: String..., value: String, in range: ClosedRange<Int>, requirement: String, help: String
    ) -> Self {
        integer(names, value: value, in: range, requirement: { _ in requirement }, help: help)
    }

    /// A whole number in `range`, whose usage error says the range: `NAME must be from LO to HI`
    /// (`seconds` after HI for a SECONDS value, `at least LO` when there is no upper bound), with
    /// `zero` saying what 0 means where 0 is allowed (`from 0 (no limit) to 3600 seconds`).
    static func integer(
        _ names: String..., value: String, in range: ClosedRange<Int>, zero: String? = nil, help: String
    ) -> Self {
        let name = names.first ?? ""
        var low = String(range.lowerBound)
        if let zero, range.lowerBound == 0 { low += " (\(zero))" }
        let unit = value == "SECONDS" ? " seconds" : ""
        let requirement =
            range.upperBound == Int.max
            ? "\(name) must be at least \(low)" : "\(name) must be from \(low) to \(range.upperBound)\(unit)"
        return integer(names, value: value, in: range, requirement: { _ in requirement }, help: help)
    }

    private static func integer(
        _ names: [String], value: String, in range: ClosedRange<Int>, requirement: @escaping @Sendable (Int) -> String,
        help: String
    ) -> Self {
        let name = names.first ?? ""
        return Self(names, value: value, help: help) { text in
            guard let n = Int(text) else { throw UsageError("\(name) expects a whole number, got '\(text)'") }
            guard range.contains(n) else { throw UsageError(requirement(n)) }
            return n
        }
    }
}

extension ValueOption where Value == UInt64 {
    /// An address or offset as `parseAddress` reads it; `what` names it in the usage error.
    static func address(_ names: String..., value: String, what: String, help: String) -> Self {
        parsed(names, value: value, expected: "\(what) (hex like 0x4000 or decimal)", help: help) { parseAddress($0) }
    }
}

extension ValueOption {
    /// A value `read` takes from the text given, nil for text it cannot read: the usage error is
    /// then `NAME expects EXPECTED, got 'TEXT'`.
    static func parsed(
        _ names: String..., value: String, expected: String, help: String,
        _ read: @escaping @Sendable (String) -> Value?
    ) -> Self {
        parsed(names, value: value, expected: expected, help: help, read)
    }

    private static func parsed(
        _ names: [String], value: String, expected: String, help: String,
        _ read: @escaping @Sendable (String) -> Value?
    ) -> Self {
        let name = names.first ?? ""
        return Self(names, value: value, help: help) { text in
            guard let value = read(text) else { throw UsageError("\(name) expects \(expected), got '\(text)'") }
            return value
        }
    }

    /// One of a few words, each standing for a value; `expected` is the usage error for another word.
    static func choice(
        _ names: String..., value: String, _ choices: KeyValuePairs<String, Value>,
        expected: @escaping @Sendable (String) -> String, help: String
    ) -> Self {
        let table = Array(choices).map { (word: $0.key, value: $0.value) }
        return Self(names, value: value, help: help) { text in
            guard let match = table.first(where: { $0.word == text }) else { throw UsageError(expected(text)) }
            return match.value
        }
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
