// Interning: a table of values numbered in the order first seen, and the index that finds a
// value's number again. Names, files and paths are interned this way wherever DWARF is read into a
// symbol table, so that each string is stored once and equal strings get equal numbers.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension Array where Element: Hashable {
    /// The number of `value` in this table: the one `index` (the table's values to their
    /// positions) has for it, else the next one, with `value` appended and indexed.
    mutating func intern(_ value: Element, index: inout [Element: UInt32]) -> UInt32 {
        if let known = index[value] { return known }
        let number = UInt32(count)
        append(value)
        index[value] = number
        return number
    }
}

/// The index of a table of strings (`[String]`), by their UTF-8 bytes: what a `[String: UInt32]`
/// is to `Array.intern`, for the names and paths of a linked program, where that dictionary's
/// SipHash over every byte of every name was the largest single cost of importing a Swift
/// program (hundreds of thousands of mangled names of 60 to 200 bytes). Names are hashed 8 bytes
/// at a time with a seed drawn per process, in an open-addressed table of indices. Equal means the
/// same bytes (a String's `==` also equates canonically equivalent Unicode; symbol names are
/// bytes, and a table that keeps two spellings apart loses nothing). Probing is watched: a run
/// of more than `longProbe` slots (names made to collide) switches the index to SipHash.
struct StringIndex {
    /// Hash (high 32 bits) and index + 1 (low 32 bits) of each slot's string; 0 is empty.
    private var slots: [UInt64] = Array(repeating: 0, count: 16)
    private var used = 0
    private static let seed = UInt64.random(in: 1...UInt64.max)
    private var siphash = false
    static let longProbe = 64
    /// Every name hashed alike until the switch to SipHash: how tests make names collide.
    private var collideForTesting = false

    init() {}

    /// An index under which every name collides until its probes grow long (tests).
    init(collidingForTesting: Bool) { collideForTesting = collidingForTesting }

    /// Whether long probes switched the index to SipHash.
    var usesSipHash: Bool { siphash }

    var count: Int { used }

    mutating func reserveCapacity(_ n: Int) {
        if (used + n) * 2 > slots.count { grow(to: used + n, hashing: nil) }
    }

    /// The number of `value` in `table`, appending it when it is new.
    mutating func intern(_ value: String, in table: inout [String]) -> UInt32 {
        if (used + 1) * 2 > slots.count { grow(to: used + 1, hashing: nil) }
        let hash = self.hash(value)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash >> 32) & mask
        var probes = 0
        while true {
            let s = slots[slot]
            if s == 0 { break }
            if s >> 32 == hash >> 32, StringIndex.same(table[Int(truncatingIfNeeded: s & 0xFFFF_FFFF) - 1], value) {
                return UInt32(truncatingIfNeeded: s & 0xFFFF_FFFF) - 1
            }
            slot = (slot + 1) & mask
            probes += 1
            if probes > StringIndex.longProbe, !siphash {
                siphash = true
                grow(to: used + 1, hashing: table)
                return intern(value, in: &table)
            }
        }
        let number = UInt32(table.count)
        table.append(value)
        slots[slot] = (hash & 0xFFFF_FFFF_0000_0000) | UInt64(number + 1)
        used += 1
        return number
    }

    /// Rebuilds the slots for `count` strings; `table` is given when the hash changed, so that
    /// its strings are hashed again.
    private mutating func grow(to count: Int, hashing table: [String]?) {
        var size = 16
        while size < count * 2 { size *= 2 }
        let old = slots
        slots = Array(repeating: 0, count: max(size, slots.count))
        let mask = slots.count - 1
        for s in old where s != 0 {
            let number = Int(truncatingIfNeeded: s & 0xFFFF_FFFF) - 1
            // A slot keeps its hash's high half, which places it: only a new hash needs the strings.
            let hash = table.map { self.hash($0[number]) } ?? s
            var slot = Int(truncatingIfNeeded: hash >> 32) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = (hash & 0xFFFF_FFFF_0000_0000) | UInt64(number + 1)
        }
    }

    private func hash(_ s: String) -> UInt64 {
        if siphash {
            var hasher = Hasher()
            hasher.combine(s.utf8.count)
            StringIndex.withBytes(s) { hasher.combine(bytes: $0) }
            let h = UInt64(UInt(bitPattern: hasher.finalize()))
            return h | (h == 0 ? 1 : 0)
        }
        if collideForTesting { return 0xDEAD_BEEF_0000_0000 }
        return StringIndex.withBytes(s) { bytes in
            var h = StringIndex.seed ^ (UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15)
            var i = 0
            while i + 8 <= bytes.count {
                h = (h ^ bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
                h ^= h >> 31
                i += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < bytes.count {
                tail |= UInt64(bytes[i]) << shift
                shift += 8
                i += 1
            }
            h = (h ^ tail) &* 0x94D0_49BB_1331_11EB
            h ^= h >> 29
            h = h &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 32
            return h
        }
    }

    @inline(__always)
    static func withBytes<R>(_ s: String, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        if let r = s.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) { return r }
        return Array(s.utf8).withUnsafeBytes(body)
    }

    static func same(_ a: String, _ b: String) -> Bool {
        withBytes(a) { x in
            withBytes(b) { y in
                x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
            }
        }
    }
}

extension Array where Element == String {
    /// `intern` by a StringIndex.
    mutating func intern(_ value: String, index: inout StringIndex) -> UInt32 {
        index.intern(value, in: &self)
    }
}
