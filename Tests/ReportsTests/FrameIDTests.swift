// Frame ids as dictionary keys: their own raw hash (SplitMix64's finalizer over the word
// `hash(into:)` feeds) must give equal ids equal values under every seed and spread the ids a
// report has over a table, or results would be lost or looked up slowly.

import SymbolicateModel
import Testing

struct FrameIDTests {
    @Test func equalIdsHashAlikeAndEveryIdIsFound() {
        var results: [FrameID: Int] = [:]
        for b in 0..<100 {
            for f in 0..<100 { results[FrameID(backtrace: b, frame: f)] = b * 1000 + f }
        }
        #expect(results.count == 10_000)
        for b in 0..<100 {
            for f in 0..<100 { #expect(results[FrameID(backtrace: b, frame: f)] == b * 1000 + f) }
        }
        #expect(results[FrameID(backtrace: 100, frame: 0)] == nil)
        for seed in [0, 1, -1, 0x5EED, Int.max] {
            let a = FrameID(backtrace: 3, frame: 7)
            #expect(a._rawHashValue(seed: seed) == FrameID(backtrace: 3, frame: 7)._rawHashValue(seed: seed))
        }
    }

    /// The ids of a report (a few backtraces of up to a few hundred frames) fall into distinct
    /// buckets of a table their size, nearly all of them.
    @Test func idsSpreadOverATable() {
        let ids = (0..<8).flatMap { b in (0..<128).map { FrameID(backtrace: b, frame: $0) } }
        let buckets = 1024
        let used = Set(ids.map { $0._rawHashValue(seed: 0x1234) & (buckets - 1) })
        // A uniform hash fills about 63% of the buckets with as many keys as buckets.
        #expect(used.count > buckets / 2, "\(used.count) of \(buckets) buckets used")
    }
}
