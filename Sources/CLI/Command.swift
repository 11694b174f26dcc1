// The shape every subcommand follows (swift-argument-parser's, without the dependency): a name,
// a one-line summary for the command list, the full help text, and `run`, which parses its own
// arguments with `Arguments`, validates, calls library code and returns an exit code.

import SymbolicateModel

/// Exit codes scripts can rely on.
public enum ExitCode {
    public static let ok: Int32 = 0
    public static let failure: Int32 = 1
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
    /// The whole `--help` text: usage line, description, options.
    static var help: String { get }
    /// Runs with the arguments after the command name; returns the exit code. Throws
    /// `UsageError` for bad usage and `SymbolicateError` for failures.
    static func run(_ arguments: [String]) throws -> Int32
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
