// The two small data structures TableBuilder's hot loops run on. `LocationTable` interns
// SymbolTable.Locations: every one of the (about a million, for a large app) range boundaries
// looks its innermost location up, so it is an open-addressing table of UInt32 indices into the
// location array with a multiply-xorshift hash of the four fields and linear probing, in place of
// a Swift Dictionary (whose SipHash alone was 17% of an import's CPU); it is emptied for each unit. `Boundaries` yields the
// distinct ends of the builder's three interval lists (scopes, lines, symbols) in ascending order
// by merging them in place rather than sorting a copy of every endpoint. `MaxHeap` picks the
// deepest, latest scope covering an address while the builder paints function scopes.

import SymbolicateModel

/// Locations in first-seen order, each stored once; `intern` returns a location's index.
/// Locations older than the last `forget` are never looked at again, so `drain` can hand them
/// on (to a build file being written) and keep only the rest: indices stay those of the whole.
struct LocationTable {
    /// The locations from `drained` on.
    private(set) var locations: [SymbolTable.Location] = []
    /// How many locations `drain` has handed on (the index of `locations[0]`).
    private(set) var drained = 0
    /// The number of locations interned so far, drained ones included.
    var count: Int { drained + locations.count }
    /// Index + 1 of the location in each slot; 0 is an empty slot. The count is a power of two
    /// kept at least twice the number of locations.
    private var slots: [UInt32] = Array(repeating: 0, count: 1 << LocationTable.minimumBits)
    private var shift: UInt64 = 64 - LocationTable.minimumBits
    /// The smallest table: 16 slots. Swift's units are walked in tens of thousands of small
    /// regions, and a table is made or emptied for each, so its size is what each costs.
    private static let minimumBits: UInt64 = 4
    /// The locations the slots know: from index `first` on (of the whole, drained ones included),
    /// up to `indexed`; those from `indexed` on were appended as known to be new
    /// (`appendNew`), and are indexed when `intern` next looks.
    private var first = 0
    private var indexed = 0

    /// `expected` bounds the number of locations from above; slots are sized for half of it (a
    /// builder's locations are typically fewer than half its range boundaries) and grow if needed.
    init(expected: Int = 0) {
        locations.reserveCapacity(expected)
        var bits = LocationTable.minimumBits
        while (1 << bits) < expected { bits += 1 }
        slots = Array(repeating: 0, count: 1 << bits)
        shift = 64 - bits
    }

    /// Room for `n` more locations without growing.
    mutating func reserve(_ n: Int) { locations.reserveCapacity(locations.count + n) }

    private static func hash(_ l: SymbolTable.Location) -> UInt64 {
        var x = (UInt64(l.function) | UInt64(l.file) << 32) &* 0x9E37_79B9_7F4A_7C15
        x ^= (UInt64(l.line) | UInt64(l.parent) << 32) &* 0xC2B2_AE3D_27D4_EB4F
        x ^= x >> 29
        return x &* 0xBF58_476D_1CE4_E5B9
    }

    /// Forgets which locations were seen (they stay in `locations`), with room for about
    /// `expected` new ones. The builder starts afresh for each unit: locations under one unit's
    /// functions are not shared with another's, and a table the size of one unit stays in cache
    /// where one for the whole file (millions of slots) costs a cache miss per lookup.
    mutating func forget(expected: Int) {
        var bits = LocationTable.minimumBits
        while (1 << bits) < expected { bits += 1 }
        if slots.count == 1 << bits {
            for i in slots.indices { slots[i] = 0 }
        } else {
            slots = Array(repeating: 0, count: 1 << bits)
        }
        shift = 64 - bits
        first = count
        indexed = count
    }

    /// Hands the locations before the last `forget` (which nothing looks at again) to `body`
    /// and drops them from memory, keeping the array's capacity for the next ones (`body` must
    /// not keep the slice, or the array is copied).
    mutating func drain(_ body: (ArraySlice<SymbolTable.Location>) throws -> Void) rethrows {
        let n = first - drained
        guard n > 0 else { return }
        try body(locations[..<n])
        locations.removeFirst(n)
        drained = first
    }

    /// The index of `location`, appended when it is new.
    mutating func intern(_ location: SymbolTable.Location) -> UInt32 {
        if indexed < count || (count - first + 1) * 2 > slots.count { index() }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: LocationTable.hash(location) >> shift)
        while true {
            let s = slots[slot]
            if s == 0 {
                let index = UInt32(count)
                locations.append(location)
                slots[slot] = index + 1
                indexed = count
                return index
            }
            if locations[Int(s - 1) - drained] == location { return s - 1 }
            slot = (slot + 1) & mask
        }
    }

    /// Appends `location`, which the caller knows differs from every location since the last
    /// `forget`, without looking: its index. A later `intern` finds it all the same.
    mutating func appendNew(_ location: SymbolTable.Location) -> UInt32 {
        locations.append(location)
        return UInt32(count - 1)
    }

    /// Makes the slots hold every location since the last `forget` with room for one more:
    /// grown (and refilled) when too small, else given those `appendNew` added.
    private mutating func index() {
        var bits = UInt64(64) - shift
        while (count - first + 1) * 2 > 1 << bits { bits += 1 }
        if 1 << bits != slots.count {
            slots = Array(repeating: 0, count: 1 << bits)
            shift = 64 - bits
            indexed = first
        }
        insert(indexed..<count)
        indexed = count
    }

    /// Puts locations `range` (indices of the whole) into the slots; none of them is there yet.
    private mutating func insert(_ range: Range<Int>) {
        let mask = slots.count - 1
        for i in range {
            let l = locations[i - drained]
            var slot = Int(truncatingIfNeeded: LocationTable.hash(l) >> shift)
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = UInt32(i + 1)
        }
    }
}

/// An interval of addresses, `start..<end`.
protocol BoundedInterval {
    var start: UInt64 { get }
    var end: UInt64 { get }
}

extension DebugInfo.LineInterval: BoundedInterval {}

/// The distinct starts and ends of three lists of intervals, ascending. Each list is normally
/// sorted and disjoint, so its endpoints already ascend and the three are merged by cursor; when
/// one is not (overlapping rows of a hostile line table), every endpoint goes through one sorted
/// array instead.
struct Boundaries<A: BoundedInterval, B: BoundedInterval, C: BoundedInterval> {
    private let a: [A]
    private let b: [B]
    private let c: [C]
    private var ia = 0, ib = 0, ic = 0
    /// The endpoint counts of the three lists, and the endpoint each cursor is at (valid while
    /// the cursor is below its count): each endpoint is read once, when its cursor reaches it.
    private var na = 0, nb = 0, nc = 0
    private var pa: UInt64 = 0, pb: UInt64 = 0, pc: UInt64 = 0
    private var sorted: [UInt64] = []
    private var isorted = 0
    /// The last boundary returned.
    private(set) var last: UInt64?

    init(_ a: [A], _ b: [B], _ c: [C]) {
        if Boundaries.ascends(a), Boundaries.ascends(b), Boundaries.ascends(c) {
            (self.a, self.b, self.c) = (a, b, c)
            (na, nb, nc) = (2 * a.count, 2 * b.count, 2 * c.count)
            if na > 0 { pa = a[0].start }
            if nb > 0 { pb = b[0].start }
            if nc > 0 { pc = c[0].start }
        } else {
            (self.a, self.b, self.c) = ([], [], [])
            sorted.reserveCapacity(2 * (a.count + b.count + c.count))
            for x in a {
                sorted.append(x.start)
                sorted.append(x.end)
            }
            for x in b {
                sorted.append(x.start)
                sorted.append(x.end)
            }
            for x in c {
                sorted.append(x.start)
                sorted.append(x.end)
            }
            sorted.sort()
        }
    }

    private static func ascends<T: BoundedInterval>(_ list: [T]) -> Bool {
        var previous: UInt64 = 0
        for x in list {
            guard previous <= x.start, x.start <= x.end else { return false }
            previous = x.end
        }
        return true
    }

    /// Endpoint `k` of `list`: the start of interval k / 2 when k is even, else its end.
    @inline(__always)
    private static func point<T: BoundedInterval>(_ list: [T], _ k: Int) -> UInt64 {
        k & 1 == 0 ? list[k >> 1].start : list[k >> 1].end
    }

    mutating func next() -> UInt64? {
        if !sorted.isEmpty {
            while isorted < sorted.count {
                let p = sorted[isorted]
                isorted += 1
                if p != last {
                    last = p
                    return p
                }
            }
            return nil
        }
        var p = UInt64.max
        var found = false
        if ia < na {
            p = pa
            found = true
        }
        if ib < nb {
            p = min(p, pb)
            found = true
        }
        if ic < nc {
            p = min(p, pc)
            found = true
        }
        guard found else { return nil }
        while ia < na, pa <= p {
            ia += 1
            if ia < na { pa = Boundaries.point(a, ia) }
        }
        while ib < nb, pb <= p {
            ib += 1
            if ib < nb { pb = Boundaries.point(b, ib) }
        }
        while ic < nc, pc <= p {
            ic += 1
            if ic < nc { pc = Boundaries.point(c, ic) }
        }
        last = p
        return p
    }
}

/// A binary max-heap of scope indices (a later DIE has a larger index and wins).
struct MaxHeap {
    private var items: [Int] = []
    var top: Int? { items.first }

    mutating func push(_ v: Int) {
        items.append(v)
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard items[parent] < items[i] else { break }
            items.swapAt(parent, i)
            i = parent
        }
    }

    mutating func pop() {
        guard !items.isEmpty else { return }
        items.swapAt(0, items.count - 1)
        items.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1
            let r = l + 1
            var m = i
            if l < items.count, items[l] > items[m] { m = l }
            if r < items.count, items[r] > items[m] { m = r }
            if m == i { return }
            items.swapAt(i, m)
            i = m
        }
    }
}

/// The builder's functions by (name, entry): the index of each, in the order they were added.
/// Open addressing over the keys with a multiply-xorshift hash, as `LocationTable` does, where a
/// Dictionary of a Hashable key spent SipHash on every one of a few hundred thousand lookups.
struct FunctionIndex {
    /// The key of function i at i.
    private var keys: [(name: UInt32, entry: UInt64)] = []
    /// Index + 1 of the function in each slot; 0 is an empty slot. A power of two, kept at
    /// least twice the number of keys.
    private var slots: [UInt32] = Array(repeating: 0, count: 256)
    private var shift: UInt64 = 64 - 8

    @inline(__always)
    private func slot(_ name: UInt32, _ entry: UInt64) -> Int {
        var x = (UInt64(name) &+ 0x9E37_79B9_7F4A_7C15) &* 0xBF58_476D_1CE4_E5B9
        x ^= entry &* 0xC2B2_AE3D_27D4_EB4F
        x ^= x >> 31
        return Int(truncatingIfNeeded: (x &* 0x94D0_49BB_1331_11EB) >> shift)
    }

    /// The index of function (name, entry), or nil with `count` being the index it would get.
    func find(_ name: UInt32, _ entry: UInt64) -> UInt32? {
        let mask = slots.count - 1
        var i = slot(name, entry)
        while slots[i] != 0 {
            let k = keys[Int(slots[i] - 1)]
            if k.name == name && k.entry == entry { return slots[i] - 1 }
            i = (i + 1) & mask
        }
        return nil
    }

    var count: Int { keys.count }

    /// Adds (name, entry), which `find` did not know, as function `count`.
    mutating func add(_ name: UInt32, _ entry: UInt64) {
        keys.append((name, entry))
        if keys.count * 2 > slots.count {
            slots = Array(repeating: 0, count: slots.count * 2)
            shift -= 1
            for n in keys.indices { place(n) }
        } else {
            place(keys.count - 1)
        }
    }

    private mutating func place(_ n: Int) {
        let mask = slots.count - 1
        var i = slot(keys[n].name, keys[n].entry)
        while slots[i] != 0 { i = (i + 1) & mask }
        slots[i] = UInt32(n + 1)
    }
}
