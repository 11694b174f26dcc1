// The two small data structures TableBuilder's hot loops run on. `LocationTable` interns
// SymbolTable.Locations: every one of the (about a million, for a large app) range boundaries
// looks its innermost location up, so it is an open-addressing table of UInt32 indices into the
// location array with a multiply-xorshift hash of the four fields and linear probing, in place of
// a Swift Dictionary (whose SipHash alone was 17% of an import's CPU). `MaxHeap` picks the
// deepest, latest scope covering an address while the builder paints function scopes.

import SymbolicateModel

/// Locations in first-seen order, each stored once; `intern` returns a location's index.
struct LocationTable {
    private(set) var locations: [SymbolTable.Location] = []
    /// Index + 1 of the location in each slot; 0 is an empty slot. The count is a power of two
    /// kept at least twice the number of locations.
    private var slots: [UInt32] = Array(repeating: 0, count: 1024)
    private var shift: UInt64 = 64 - 10

    init(capacity: Int = 0) {
        locations.reserveCapacity(capacity)
        var bits: UInt64 = 10
        while (1 << bits) < capacity * 2 { bits += 1 }
        slots = Array(repeating: 0, count: 1 << bits)
        shift = 64 - bits
    }

    private static func hash(_ l: SymbolTable.Location) -> UInt64 {
        var x = (UInt64(l.function) | UInt64(l.file) << 32) &* 0x9E37_79B9_7F4A_7C15
        x ^= (UInt64(l.line) | UInt64(l.parent) << 32) &* 0xC2B2_AE3D_27D4_EB4F
        x ^= x >> 29
        return x &* 0xBF58_476D_1CE4_E5B9
    }

    /// The index of `location`, appended when it is new.
    mutating func intern(_ location: SymbolTable.Location) -> UInt32 {
        if (locations.count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: LocationTable.hash(location) >> shift)
        while true {
            let s = slots[slot]
            if s == 0 {
                let index = UInt32(locations.count)
                locations.append(location)
                slots[slot] = index + 1
                return index
            }
            if locations[Int(s - 1)] == location { return s - 1 }
            slot = (slot + 1) & mask
        }
    }

    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        shift -= 1
        let mask = slots.count - 1
        for (i, l) in locations.enumerated() {
            var slot = Int(truncatingIfNeeded: LocationTable.hash(l) >> shift)
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = UInt32(i + 1)
        }
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
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < items.count, items[l] > items[m] { m = l }
            if r < items.count, items[r] > items[m] { m = r }
            if m == i { return }
            items.swapAt(i, m)
            i = m
        }
    }
}
