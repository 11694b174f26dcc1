// Transitional: replaced by the real default command once symbolication is wired.
enum SymbolicateCommand: Command {
    static let name = "symbolicate"
    static let summary = "Symbolicate a crash report"
    static let help = "USAGE: symbolicate [-o OUT] REPORT [SYMBOL_PATH...]\n"
    static func run(_ arguments: [String]) throws -> Int32 { ExitCode.failure }
}
