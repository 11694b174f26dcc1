// OffsetMap: a map from section offsets (UInt64) to UInt32 numbers, for the DIE reader's per-DIE
// lookups (a name by where it lies in .debug_str, the names of a DIE reached through
// abstract_origin) and a unit walk's symbol names. Open addressing with a multiply-shift hash and
// linear probing: a Swift Dictionary hashes every key with SipHash, which was a tenth of the
// reader's time on these lookups. Entries are only added, never removed; `removeAll` is O(1): an
// entry counts only if it was written in the current generation.

struct OffsetMap {
    private var keys: [UInt64]
    private var values: [UInt32]
    private var generations: [UInt32]
    private var generation: UInt32 = 1
    private var shift: UInt64
    private(set) var count = 0

    init(bits: Int = 8) {
        let size = 1 << bits
        keys = Array(repeating: 0, count: size)
        values = Array(repeating: 0, count: size)
        generations = Array(repeating: 0, count: size)
        shift = 64 - UInt64(bits)
    }

    @inline(__always)
    private func slot(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The number stored for `key`.
    subscript(key: UInt64) -> UInt32? {
        let mask = keys.count - 1
        var i = slot(key)
        while generations[i] == generation {
            if keys[i] == key { return values[i] }
            i = (i + 1) & mask
        }
        return nil
    }

    /// Stores `value` for `key`, replacing the number it had.
    mutating func set(_ key: UInt64, _ value: UInt32) {
        if (count + 1) * 2 > keys.count { grow() }
        let mask = keys.count - 1
        var i = slot(key)
        while generations[i] == generation {
            if keys[i] == key {
                values[i] = value
                return
            }
            i = (i + 1) & mask
        }
        keys[i] = key
        values[i] = value
        generations[i] = generation
        count += 1
    }

    /// Forgets every entry, keeping the storage.
    mutating func removeAll() {
        count = 0
        if generation == .max {
            for i in generations.indices { generations[i] = 0 }
            generation = 1
        } else {
            generation += 1
        }
    }

    private mutating func grow() {
        var bigger = OffsetMap(bits: 64 - Int(shift) + 1)
        for i in keys.indices where generations[i] == generation { bigger.set(keys[i], values[i]) }
        self = bigger
    }
}
