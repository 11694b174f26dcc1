// The shape every subcommand follows (swift-argument-parser's, without the dependency): a name,
// a one-line summary for the command list, its options declared once (Option.swift), the
// hand-written parts of its help, and `run`, which gets its arguments parsed with those options,
// validates, calls library code and returns an exit code.

import SymbolicateModel

/// Exit codes scripts can rely on.
public enum ExitCode {
    public static let ok: Int32 = 0
    public static let failure: Int32 = 1
    /// `--strict`: the report was written, but an image that is not a system image has frames
    /// whose symbols are missing or mismatched.
    public static let incomplete: Int32 = 3
    public static let usage: Int32 = 64
    public static let badInput: Int32 = 65
}

/// A mistake in how the command was called: printed with the command's usage, exit 64.
struct UsageError: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

protocol Command: Sendable {
    /// The word after `symbolicate` (`import`, `lookup`, ...).
    static var name: String { get }
    /// One line for `symbolicate --help`.
    static var summary: String { get }
    /// The help before OPTIONS: the usage line and what the command does.
    static var about: String { get }
    /// The options the command takes, in the order its help lists them (`-h, --help` is added).
    static var options: [any CommandOption] { get }
    /// The help after OPTIONS: exit status, examples.
    static var epilogue: String { get }
    /// Runs with the arguments after the command name, parsed with `acceptedOptions`; returns
    /// the exit code. Throws `UsageError` for bad usage and `SymbolicateError` for failures.
    static func run(_ arguments: Arguments) throws -> Int32
}

extension Command {
    /// Every option the command's parser accepts: its own and `-h, --help`.
    static var acceptedOptions: [any CommandOption] { options + [CommonOptions.help] }

    /// The whole `--help` text: `about`, the OPTIONS block written from the declarations, `epilogue`.
    static var help: String {
        let options = "OPTIONS:\n" + OptionHelp.block(acceptedOptions) + "\n"
        return [about, options, epilogue].filter { !$0.isEmpty }.joined(separator: "\n")
    }

    /// Parses `arguments` with the command's options, then runs it.
    static func run(_ arguments: [String]) throws -> Int32 {
        try run(try Arguments(arguments, options: acceptedOptions))
    }
}

extension SymbolicateError.Code {
    /// The exit code a failure of this kind ends the process with.
    var exitCode: Int32 {
        switch self {
        case .badInput, .unsupported: return ExitCode.badInput
        default: return ExitCode.failure
        }
    }
}
