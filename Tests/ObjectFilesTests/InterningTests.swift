// Interning, the numbering the symbol-table readers give names and files: first seen, first
// numbered; a value seen again keeps its number; the table and its index stay in step.

import Testing

@testable import ObjectFiles

struct InterningTests {
    @Test func firstSeenFirstNumbered() {
        var table: [String] = []
        var index: [String: UInt32] = [:]
        let numbers = ["b.c", "a.c", "b.c", "c.c", "a.c"].map { table.intern($0, index: &index) }
        #expect(numbers == [0, 1, 0, 2, 1])
        #expect(table == ["b.c", "a.c", "c.c"])
        #expect(index == ["b.c": 0, "a.c": 1, "c.c": 2])
    }

    /// A table that already holds values (a later unit's part appended to an earlier one's)
    /// numbers new values after them and finds the old ones through the index.
    @Test func continuesAnExistingTable() {
        var table = ["x"]
        var index: [String: UInt32] = ["x": 0]
        #expect(table.intern("y", index: &index) == 1)
        #expect(table.intern("x", index: &index) == 0)
        #expect(table == ["x", "y"])
    }
}
