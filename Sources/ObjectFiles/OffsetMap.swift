// OffsetMap: a map from section offsets (UInt64) to values, for the DIE reader's per-DIE lookups
// (a name by where it lies in .debug_str, the names of a DIE reached through abstract_origin).
// Open addressing with a multiply-shift hash and linear probing: a Swift Dictionary hashes every
// key with SipHash, which was a tenth of the reader's time on these lookups. `removeAll` is O(1):
// an entry counts only if it was written in the current generation.

struct OffsetMap<Value> {
    private var keys: [UInt64]
    private var generations: [UInt32]
    private var values: [Value?]
    private var generation: UInt32 = 1
    private var shift: UInt64
    private(set) var count = 0

    init(bits: Int = 8) {
        let size = 1 << bits
        keys = Array(repeating: 0, count: size)
        generations = Array(repeating: 0, count: size)
        values = Array(repeating: nil, count: size)
        shift = 64 - UInt64(bits)
    }

    @inline(__always)
    private func slot(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    subscript(key: UInt64) -> Value? {
        get {
            let mask = keys.count - 1
            var i = slot(key)
            while generations[i] == generation {
                if keys[i] == key { return values[i] }
                i = (i + 1) & mask
            }
            return nil
        }
        set {
            guard let newValue else { return remove(key) }
            if (count + 1) * 2 > keys.count { grow() }
            let mask = keys.count - 1
            var i = slot(key)
            while generations[i] == generation {
                if keys[i] == key {
                    values[i] = newValue
                    return
                }
                i = (i + 1) & mask
            }
            keys[i] = key
            generations[i] = generation
            values[i] = newValue
            count += 1
        }
    }

    /// Forgets every entry, keeping the storage (old values are let go as their slots are
    /// written again).
    mutating func removeAll() {
        count = 0
        if generation == .max {
            for i in generations.indices { generations[i] = 0 }
            generation = 1
        } else {
            generation += 1
        }
    }

    private mutating func remove(_ key: UInt64) {
        // Rebuilt without the key (removal is rare: never on the reader's paths).
        var rebuilt = OffsetMap(bits: 64 - Int(shift))
        for i in keys.indices where generations[i] == generation && keys[i] != key {
            rebuilt[keys[i]] = values[i]
        }
        self = rebuilt
    }

    private mutating func grow() {
        var bigger = OffsetMap(bits: 64 - Int(shift) + 1)
        for i in keys.indices where generations[i] == generation { bigger[keys[i]] = values[i] }
        self = bigger
    }
}
