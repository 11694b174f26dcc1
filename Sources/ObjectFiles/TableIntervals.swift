// The intervals a unit walk runs on, made from one unit's DWARF: its function scopes painted
// into disjoint pieces owned by the deepest, latest scope (llvm-symbolizer's rule for inline
// chains), its line rows as llvm's sequence lookup reaches them, and both clipped to the address
// regions the unit owns.

import SymbolicateModel

extension TableBuilder {
    struct ScopeInterval: BoundedInterval {
        var start: UInt64
        var end: UInt64
        var node: Int32
    }

    /// Disjoint intervals owned by the deepest, latest scope covering them.
    static func paint(_ scopes: ArraySlice<DebugInfo.Scope>) -> [ScopeInterval] {
        guard !scopes.isEmpty else { return [] }
        let byStart = scopes.indices.sorted { scopes[$0].start < scopes[$1].start }
        var points: [UInt64] = []
        points.reserveCapacity(2 * scopes.count)
        for s in scopes {
            points.append(s.start)
            points.append(s.end)
        }
        points.sort()
        var heap = MaxHeap()
        var cursor = 0
        var out: [ScopeInterval] = []
        var current: (start: UInt64, node: Int32)?
        var previousPoint: UInt64?
        for p in points where p != previousPoint {
            previousPoint = p
            while cursor < byStart.count, scopes[byStart[cursor]].start <= p {
                heap.push(byStart[cursor])
                cursor += 1
            }
            while let top = heap.top, scopes[top].end <= p { heap.pop() }
            let node = heap.top.map { scopes[$0].node }
            if node != current?.node {
                if let c = current { out.append(ScopeInterval(start: c.start, end: p, node: c.node)) }
                current = node.map { (p, $0) }
            }
        }
        return out
    }

    /// The parts of `items` (sorted, disjoint) inside `owned` (sorted, disjoint).
    static func clip<T>(
        _ items: [T], to owned: [(start: UInt64, end: UInt64)], bounds: (T) -> (UInt64, UInt64),
        make: (T, UInt64, UInt64) -> T
    ) -> [T] {
        var out: [T] = []
        out.reserveCapacity(items.count)
        var j = 0
        for item in items {
            let (s, e) = bounds(item)
            while j < owned.count, owned[j].end <= s { j += 1 }
            var k = j
            while k < owned.count, owned[k].start < e {
                let cs = max(s, owned[k].start)
                let ce = min(e, owned[k].end)
                if cs < ce { out.append(cs == s && ce == e ? item : make(item, cs, ce)) }
                k += 1
            }
        }
        return out
    }

    /// Line intervals reachable through llvm's sequence lookup, sorted by start.
    static func lineIntervals(_ info: DebugInfo, _ sequences: Range<Int>) -> [DebugInfo.LineInterval] {
        let order = sequences.sorted {
            (info.sequences[$0].high, $0) < (info.sequences[$1].high, $1)
        }
        var out: [DebugInfo.LineInterval] = []
        out.reserveCapacity(sequences.reduce(0) { $0 + info.sequences[$1].intervals.count })
        var previousHigh: UInt64 = 0
        for i in order {
            let s = info.sequences[i]
            let low = max(s.low, previousHigh)
            previousHigh = max(previousHigh, s.high)
            guard low < s.high else { continue }
            for j in s.intervals {
                var l = info.lines[j]
                if l.end <= low { continue }
                l.start = max(l.start, low)
                l.end = min(l.end, s.high)
                if l.start < l.end { out.append(l) }
            }
        }
        out.sort { $0.start < $1.start }
        return out
    }

    /// A unit's scopes and line rows as intervals inside the regions it owns.
    static func prepare(_ info: DebugInfo, _ u: DebugInfo.Unit, owned: [(start: UInt64, end: UInt64)]) -> (
        pieces: [ScopeInterval], lines: [DebugInfo.LineInterval]
    ) {
        let pieces = clip(
            paint(info.scopes[u.scopes]), to: owned, bounds: { ($0.start, $0.end) },
            make: { ScopeInterval(start: $1, end: $2, node: $0.node) })
        let lines = clip(
            lineIntervals(info, u.sequences), to: owned, bounds: { ($0.start, $0.end) },
            make: { DebugInfo.LineInterval(start: $1, end: $2, file: $0.file, line: $0.line) })
        return (pieces, lines)
    }
}
