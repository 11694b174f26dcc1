// LocationTable, the interning of a symbol table's locations: a location interned twice gets
// one number; locations appended as known to be new (`appendNew`, the merge of a unit whose
// numbers map one-to-one) are found by a later `intern` all the same, however many there are;
// draining hands on the older locations and keeps the numbers of the rest.

import SymbolicateModel
import Testing

@testable import ObjectFiles

struct LocationTableTests {
    private func location(_ i: Int) -> SymbolTable.Location {
        SymbolTable.Location(function: UInt32(i % 7), file: UInt32(i % 3), line: UInt32(i), parent: SymbolTable.none)
    }

    @Test func internNumbersEachLocationOnce() {
        var table = LocationTable()
        #expect(table.intern(location(1)) == 0)
        #expect(table.intern(location(2)) == 1)
        #expect(table.intern(location(1)) == 0)
        #expect(table.count == 2)
    }

    /// More appended locations than the smallest table has slots: `intern` indexes them all
    /// (growing the slots first) and finds each, adding nothing.
    @Test func internFindsAppendedLocations() {
        var table = LocationTable()
        table.forget(expected: 0)
        for i in 0..<100 { #expect(table.appendNew(location(i)) == UInt32(i)) }
        for i in (0..<100).reversed() { #expect(table.intern(location(i)) == UInt32(i)) }
        #expect(table.count == 100)
        #expect(table.intern(location(100)) == 100)
        // Appending after interning, then interning again.
        #expect(table.appendNew(location(101)) == 101)
        #expect(table.intern(location(101)) == 101)
        #expect(table.intern(location(50)) == 50)
        #expect(table.count == 102)
    }

    /// After `forget`, a location seen before is new again (a new region); draining hands on the
    /// locations before it and the numbers go on from the whole count.
    @Test func forgetAndDrainKeepNumbers() {
        var table = LocationTable()
        _ = table.intern(location(1))
        _ = table.appendNew(location(2))
        table.forget(expected: 4)
        #expect(table.intern(location(1)) == 2)
        var drained: [SymbolTable.Location] = []
        table.drain { drained.append(contentsOf: $0) }
        #expect(drained == [location(1), location(2)])
        #expect(table.locations == [location(1)])
        #expect(table.intern(location(3)) == 3)
        #expect(table.intern(location(1)) == 2)
        #expect(table.count == 4)
    }
}
