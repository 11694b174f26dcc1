// The members a JSON format gives a symbolicated frame: the symbol, the offset into it, the
// source file's name and the line, each only when known (no line without a file). `.ips` uses
// Xcode's names, MetricKit App Store Connect's; the rule for which members appear is one.

import SymbolicateModel

struct FrameKeys {
    var symbol: String
    var offset: String
    var file: String
    var line: String

    /// Xcode's names in a symbolicated `.ips`.
    static let ips = FrameKeys(symbol: "symbol", offset: "symbolLocation", file: "sourceFile", line: "sourceLine")
    /// App Store Connect's names for a symbolicated call-stack node.
    static let metricKit = FrameKeys(
        symbol: "symbolName", offset: "offsetIntoSymbol", file: "fileName", line: "lineNumber")

    /// The key/value pairs of one level, values as JSON text, in this order.
    func values(_ level: SymbolicatedFrame) -> [(String, String)] {
        var pairs: [(String, String)] = [(symbol, JSONWriter.quote(level.symbol))]
        if let offset = level.symbolOffset { pairs.append((self.offset, String(offset))) }
        if let file = level.fileName {
            pairs.append((self.file, JSONWriter.quote(file)))
            if let line = level.line { pairs.append((self.line, String(line))) }
        }
        return pairs
    }
}
