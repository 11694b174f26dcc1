// Binary search, written once: the index where a sorted collection turns from elements that fail
// a test to elements that pass it, as swift-algorithms' `partitioningIndex(where:)` (that
// package cannot be a dependency here). Every "last range starting at or before an address" and
// "first entry ending after an offset" lookup of the symbol tables, image lists and DWARF units
// goes through it.

extension RandomAccessCollection {
    /// The index of the first element for which `belongsInSecondPartition` is true, in a
    /// collection where every such element follows every element for which it is false;
    /// `endIndex` when there is none. O(log n) calls of the predicate.
    @inlinable
    public func partitioningIndex(where belongsInSecondPartition: (Element) throws -> Bool) rethrows -> Index {
        var low = startIndex
        var count = self.count
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if try belongsInSecondPartition(self[middle]) {
                count = half
            } else {
                low = index(after: middle)
                count -= half + 1
            }
        }
        return low
    }
}
