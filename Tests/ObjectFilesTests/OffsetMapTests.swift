// OffsetMap against a Dictionary doing the same: random sets, overwrites and reads over keys
// that collide in the low and high bits, through growth and through O(1) `removeAll`
// generations, must answer every read alike.

import TestSupport
import Testing

@testable import ObjectFiles

struct OffsetMapTests {
    @Test func answersAsADictionaryDoes() {
        var random = SplitMix64(seed: 0x0FF5_E7)
        var map = OffsetMap(bits: 2)
        var truth: [UInt64: UInt32] = [:]
        for round in 0..<20 {
            for _ in 0..<(50 + random.below(3000)) {
                // Offsets as the reader sees them: clustered, with section bits on top.
                let key = UInt64(random.below(4)) << 56 | UInt64(random.below(5000)) * 8
                switch random.below(10) {
                case 0..<6:
                    let value = UInt32(truncatingIfNeeded: random.next())
                    map.set(key, value)
                    truth[key] = value
                default:
                    #expect(map[key] == truth[key], "round \(round), key \(key)")
                }
            }
            #expect(map.count == truth.count)
            for (key, value) in truth { #expect(map[key] == value) }
            if round % 3 == 2 {
                map.removeAll()
                truth.removeAll()
                #expect(map.count == 0)
                #expect(map[UInt64(random.below(5000)) * 8] == nil)
            }
        }
    }
}
