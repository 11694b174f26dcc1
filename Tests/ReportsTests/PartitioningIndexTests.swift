// partitioningIndex(where:), the binary search every sorted lookup uses: checked against a linear
// scan on random sorted arrays with repeats, their slices (whose indices do not start at 0), and
// the edges (empty, all before, all after).

import SymbolicateModel
import TestSupport
import Testing

@Suite struct PartitioningIndexTests {
    @Test func agreesWithALinearScan() {
        var random = SplitMix64(seed: 0x5EED)
        for _ in 0..<500 {
            let count = Int(random.next() % 40)
            let values = (0..<count).map { _ in random.next() % 20 }.sorted()
            let lower = count == 0 ? 0 : Int(random.next() % UInt64(count + 1))
            let slice = values[lower...]
            for pivot in UInt64(0)...21 {
                let expected = slice.firstIndex { $0 > pivot } ?? slice.endIndex
                #expect(slice.partitioningIndex { $0 > pivot } == expected, "\(values) from \(lower), pivot \(pivot)")
                #expect(values.partitioningIndex { $0 >= pivot } == (values.firstIndex { $0 >= pivot } ?? count))
            }
        }
    }

    @Test func edges() {
        #expect([Int]().partitioningIndex { _ in true } == 0)
        #expect([1, 2, 3].partitioningIndex { _ in true } == 0)
        #expect([1, 2, 3].partitioningIndex { _ in false } == 3)
        #expect((5..<9).partitioningIndex { $0 >= 7 } == 7)
    }
}
