// The entry point: picks the subcommand, runs it, and turns every outcome into an exit code
// and at most one line on stderr. Bad input never reaches a trap or a stack trace.

import Foundation
import Store
import SymbolicateModel
import SystemSupport

public enum CommandLineTool {
    static var commands: [any Command.Type] { commandList }

    public static func main() {
        let args = Array(CommandLine.arguments.dropFirst())
        switch outcome(args) {
        case .exit(let code):
            fflush(nil)
            exit(code)
        case .outputClosed:
            StandardOutput.endForClosedReader()
        }
    }

    /// Runs one invocation and returns its exit code (used by `main` and by tests). A reader of
    /// stdout that went away counts as a failure here; `main` ends by SIGPIPE instead.
    public static func run(_ args: [String]) -> Int32 {
        switch outcome(args) {
        case .exit(let code): return code
        case .outputClosed: return ExitCode.failure
        }
    }

    enum Outcome {
        case exit(Int32)
        /// stdout's reader went away (EPIPE): end without a word.
        case outputClosed
    }

    static func outcome(_ args: [String]) -> Outcome {
        // `symbolicate < in.crash`: no argument, but a report on standard input.
        if args.isEmpty, isatty(STDIN_FILENO) != 0 {
            Console.error(SymbolicateCommand.help)
            return .exit(ExitCode.usage)
        }
        var command: any Command.Type = SymbolicateCommand.self
        do {
            if args == ["--help"] || args == ["-h"] || args == ["help"] {
                try Console.out(overview)
                return .exit(ExitCode.ok)
            }
            if args == ["--version"] {
                try Console.out("symbolicate \(version)\n")
                return .exit(ExitCode.ok)
            }
            var rest = args
            if let first = args.first,
                let named = commands.first(where: { $0.name == first && $0 != SymbolicateCommand.self })
            {
                command = named
                rest = Array(args.dropFirst())
            } else if args.first == "help", args.count > 1 {
                guard let named = commands.first(where: { $0.name == args[1] }) else {
                    // `help WORD` asks about a command: WORD is what is unknown, not `help`.
                    let mistake =
                        unknownCommand(args[1])
                        ?? "unknown command '\(args[1])'; run `symbolicate --help` for the commands"
                    Console.error("error: \(mistake)\n")
                    Console.error(overview)
                    return .exit(ExitCode.usage)
                }
                try Console.out(named.help)
                return .exit(ExitCode.ok)
            }
            if command == SymbolicateCommand.self, let first = args.first, let mistake = unknownCommand(first) {
                Console.error("error: \(mistake)\n")
                Console.error(overview)
                return .exit(ExitCode.usage)
            }
            if rest.contains("--help") || rest.contains("-h") {
                try Console.out(command.help)
                return .exit(ExitCode.ok)
            }
            return .exit(try command.run(rest))
        } catch is StandardOutput.Closed {
            return .outputClosed
        } catch let error as UsageError {
            // One line for the mistake and the usage line, not the whole help.
            Console.error("error: \(error.message)")
            Console.error(usageLines(command))
            return .exit(ExitCode.usage)
        } catch let error as SymbolicateError {
            Console.error("error: \(error.description)")
            return .exit(error.code.exitCode)
        } catch {
            // Foundation's errors name a path in their user info: say what happened to it.
            if let path = (error as NSError).userInfo[NSFilePathErrorKey] as? String {
                Console.error("error: \(path): \(Folders.reason(error, at: path))")
            } else {
                Console.error("error: \(error)")
            }
            return .exit(ExitCode.failure)
        }
    }

    /// The command's `USAGE:` line (with its continuation lines) and where the rest of the help is.
    static func usageLines(_ command: any Command.Type) -> String {
        let lines = command.about.split(separator: "\n", omittingEmptySubsequences: false)
        let usage = lines.drop { !$0.hasPrefix("USAGE:") }.prefix { !$0.isEmpty }
        let name = command == SymbolicateCommand.self ? "symbolicate" : "symbolicate \(command.name)"
        return (usage.map(String.init) + ["run `\(name) --help` for every option"]).joined(separator: "\n")
    }

    /// The first word when it is neither a command nor a report: no file of that name, and a
    /// bare word (no `/`, no `.`, not `-`), as a mistyped command is. Says which command is
    /// close (`imprt` -> `import`, edit distance at most 2, or a prefix), else what to run.
    static func unknownCommand(_ word: String) -> String? {
        guard !word.hasPrefix("-"), !word.contains("/"), !word.contains("."),
            !FileManager.default.fileExists(atPath: word)
        else { return nil }
        let names = commands.compactMap { $0 == SymbolicateCommand.self ? nil : $0.name }
        let lowered = word.lowercased()
        var best: String? = nil
        var bestDistance = Int.max
        for name in names {
            let distance = editDistance(lowered, name)
            if distance < bestDistance {
                best = name
                bestDistance = distance
            }
        }
        if let best, bestDistance <= min(2, max(1, word.count / 2)) {
            return "unknown command '\(word)'; did you mean `\(best)`?"
        }
        if lowered.count >= 2, let prefixed = names.first(where: { $0.hasPrefix(lowered) }) {
            return "unknown command '\(word)'; did you mean `\(prefixed)`?"
        }
        return "'\(word)' is neither a command nor a report file; run `symbolicate --help` for the commands"
    }

    /// Levenshtein distance: insertions, deletions and substitutions, one each.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = Swift.min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    static let version = "0.1.0"

    static var overview: String {
        var s = """
            symbolicate: turn the addresses of Apple crash reports into functions, files and lines.

            USAGE: symbolicate [-o OUT] [-d DSYM]... [options] REPORT [SYMBOL_PATH...]
                   symbolicate COMMAND [options] ...

            COMMANDS:

            """
        for c in commands {
            let name = c == SymbolicateCommand.self ? "(default)" : c.name
            s += "  " + OptionHelp.padded(name, to: 12) + c.summary + "\n"
        }
        s += "\nOPTIONS (of the default command):\n" + OptionHelp.block(SymbolicateCommand.acceptedOptions) + "\n"
        s += "\nRun `symbolicate COMMAND --help` (or `symbolicate help COMMAND`) for a command's options,\n"
        s += "and `symbolicate --version` for the version.\n"
        return s
    }
}
