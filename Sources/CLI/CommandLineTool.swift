// The entry point: picks the subcommand, runs it, and turns every outcome into an exit code
// and at most one line on stderr. Bad input never reaches a trap or a stack trace.

import Foundation
import SymbolicateModel

public enum CommandLineTool {
    static var commands: [any Command.Type] { commandList }

    public static func main() {
        let args = Array(CommandLine.arguments.dropFirst())
        let code = run(args)
        fflush(nil)
        exit(code)
    }

    /// Runs one invocation and returns its exit code (used by `main` and by tests).
    public static func run(_ args: [String]) -> Int32 {
        if args.isEmpty {
            Console.error(SymbolicateCommand.help)
            return ExitCode.usage
        }
        if args == ["--help"] || args == ["-h"] || args == ["help"] {
            Console.out(overview)
            return ExitCode.ok
        }
        if args == ["--version"] {
            Console.out("symbolicate \(version)\n")
            return ExitCode.ok
        }
        var command: any Command.Type = SymbolicateCommand.self
        var rest = args
        if let first = args.first, let named = commands.first(where: { $0.name == first && $0 != SymbolicateCommand.self }) {
            command = named
            rest = Array(args.dropFirst())
        } else if args.first == "help", args.count > 1, let named = commands.first(where: { $0.name == args[1] }) {
            Console.out(named.help)
            return ExitCode.ok
        }
        if rest.contains("--help") || rest.contains("-h") {
            Console.out(command.help)
            return ExitCode.ok
        }
        do {
            return try command.run(rest)
        } catch let error as UsageError {
            Console.error("error: \(error.message)\n")
            Console.error(command.help)
            return ExitCode.usage
        } catch let error as SymbolicateError {
            Console.error("error: \(error.description)")
            return error.code.exitCode
        } catch {
            Console.error("error: \(error)")
            return ExitCode.failure
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
