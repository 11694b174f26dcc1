// SplitMix64 (Steele, Lea and Flood, 2014): a small seeded generator, so a test that mutates
// bytes or builds random tables sees the same values on every run and a failure reproduces.

public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in 0..<n (0 when n is 0 or less).
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }

    /// `count` bytes, eight from each value (fast enough for megabytes in a debug build).
    public mutating func bytes(_ count: Int) -> [UInt8] {
        var words = [UInt64](repeating: 0, count: (max(0, count) + 7) / 8)
        for index in words.indices { words[index] = next() }
        return words.withUnsafeBytes { Array($0.prefix(max(0, count))) }
    }
}
