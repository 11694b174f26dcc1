// The members a JSON format gives a symbolicated frame: the symbol, the offset into it, the
// source file's name and the line, each only when known (no line without a file). `.ips` uses
// Xcode's names, MetricKit App Store Connect's; the rule for which members appear is one, and so
// is the rule for a frame object symbolicated again: the members written replace those of the
// same name (the first keeps its place, repeats go), and the source location members the new
// result has none for are removed.

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

    /// The source location keys that `pairs` (what a frame is written with) has no value for.
    /// They say where the symbol is, so left in place they would give the place of the symbol
    /// that was there before (an earlier run's, or another symbolicator's: nothing in the object
    /// tells which). The offset key, which a device may write next to its own symbol, is only
    /// ever replaced (a lookup that finds a symbol nearly always has its offset).
    func stale(_ pairs: [(String, String)]) -> Set<String> {
        Set([file, line]).subtracting(pairs.map(\.0))
    }

    /// One member of a JSON object: its key, where the key (with its quotes) and the value are.
    struct Member {
        var key: String
        var keyRange: Range<Int>
        var value: Range<Int>
    }

    /// The edits that give the object whose `{` is at `objectStart` the members `pairs` (values
    /// as JSON text), in the object's own separators (`keyValue` between a key and its value,
    /// `separator` between members): where the object has a key, the first member of that name
    /// gets the new value and any repeat of it is removed; the other pairs are added after the
    /// last member kept whose key is not in `last` (members that stay at the end, as MetricKit's
    /// `subFrames`), or first in the object when there is none. The members named in `stale`
    /// are removed, each with one separator.
    static func edits(
        _ members: [Member], objectStart: Int, pairs: [(String, String)], stale: Set<String>,
        last: Set<String> = [], keyValue: [UInt8], separator: [UInt8]
    ) -> [ByteEdit] {
        let written = Set(pairs.map(\.0))
        var first: [String: Int] = [:]
        var removed: [Int] = []
        for (i, member) in members.enumerated() {
            if written.contains(member.key) {
                if first[member.key] == nil { first[member.key] = i } else { removed.append(i) }
            } else if stale.contains(member.key) {
                removed.append(i)
            }
        }
        var edits = removals(members, removed)
        let gone = Set(removed)
        let kept = members.indices.filter { !gone.contains($0) }
        var added: [[UInt8]] = []
        for (key, value) in pairs {
            if let i = first[key] {
                edits.append(ByteEdit(range: members[i].value, bytes: Array(value.utf8)))
            } else {
                added.append(Array(JSONWriter.quote(key).utf8) + keyValue + Array(value.utf8))
            }
        }
        guard !added.isEmpty else { return edits }
        if let anchor = kept.last(where: { !last.contains(members[$0].key) }) {
            // After that member: a separator before each pair.
            let at = members[anchor].value.upperBound
            edits.append(ByteEdit(range: at..<at, bytes: added.flatMap { separator + $0 }))
        } else {
            // First in the object: a separator after each pair that another member follows.
            let at = objectStart + 1
            var bytes: [UInt8] = []
            for (i, pair) in added.enumerated() {
                bytes += pair
                if i + 1 < added.count || !kept.isEmpty { bytes += separator }
            }
            edits.append(ByteEdit(range: at..<at, bytes: bytes))
        }
        return edits
    }

    /// The edits that take the members at `removed` (ascending) out of an object, each with one
    /// separator: the one before it, or, for those before the first member kept, the one after.
    static func removals(_ members: [Member], _ removed: [Int]) -> [ByteEdit] {
        guard let first = removed.first else { return [] }
        let gone = Set(removed)
        guard let firstKept = members.indices.first(where: { !gone.contains($0) }) else {
            return [
                ByteEdit(
                    range: members[first].keyRange.lowerBound..<members[members.count - 1].value.upperBound, bytes: [])
            ]
        }
        var edits: [ByteEdit] = []
        if firstKept > 0 {
            edits.append(
                ByteEdit(range: members[0].keyRange.lowerBound..<members[firstKept].keyRange.lowerBound, bytes: []))
        }
        for i in removed where i > firstKept {
            edits.append(ByteEdit(range: members[i - 1].value.upperBound..<members[i].value.upperBound, bytes: []))
        }
        return edits
    }
}
