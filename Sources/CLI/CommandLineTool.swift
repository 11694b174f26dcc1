// The entry point: picks the subcommand, runs it, and turns every outcome into an exit code
// and at most one line on stderr. Bad input never reaches a trap or a stack trace.

import Foundation
import SymbolicateModel

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
        if args.isEmpty {
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
            if let first = args.first, let named = commands.first(where: { $0.name == first && $0 != SymbolicateCommand.self }) {
                command = named
                rest = Array(args.dropFirst())
            } else if args.first == "help", args.count > 1, let named = commands.first(where: { $0.name == args[1] }) {
                try Console.out(named.help)
                return .exit(ExitCode.ok)
            }
            if rest.contains("--help") || rest.contains("-h") {
                try Console.out(command.help)
                return .exit(ExitCode.ok)
            }
            return .exit(try command.run(rest))
        } catch is StandardOutput.Closed {
            return .outputClosed
        } catch let error as UsageError {
            Console.error("error: \(error.message)\n")
            Console.error(command.help)
            return .exit(ExitCode.usage)
        } catch let error as SymbolicateError {
            Console.error("error: \(error.description)")
            return .exit(error.code.exitCode)
        } catch {
            Console.error("error: \(error)")
            return .exit(ExitCode.failure)
        }
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
            s += "  " + name.padding(toLength: 12, withPad: " ", startingAt: 0) + c.summary + "\n"
        }
        s += "\nRun `symbolicate COMMAND --help` for a command's options.\n"
        return s
    }
}
