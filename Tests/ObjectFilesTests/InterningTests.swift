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

    /// Random names (empty, short, long, non-ASCII, sharing prefixes), many repeated, through a
    /// StringIndex and through the dictionary it replaces: the same numbers and the same table.
    @Test(arguments: [false, true])
    func aStringIndexNumbersAsTheDictionaryDoes(colliding: Bool) {
        var random = SystemRandomNumberGenerator()
        let alphabet = Array("ab$s_0éz\u{1F600}")
        var names: [String] = [""]
        for _ in 0..<(colliding ? 400 : 5000) {
            let length = Int.random(in: 0...(Bool.random(using: &random) ? 9 : 90), using: &random)
            let stem = Bool.random(using: &random) ? names.randomElement(using: &random)! : ""
            names.append(stem + String((0..<length).map { _ in alphabet.randomElement(using: &random)! }))
        }
        var ours: [String] = []
        var index = colliding ? StringIndex(collidingForTesting: true) : StringIndex()
        var theirs: [String] = []
        var dictionary: [String: UInt32] = [:]
        var differ = 0
        for _ in 0..<(names.count * 3) {
            let name = names.randomElement(using: &random)!
            if ours.intern(name, index: &index) != theirs.intern(name, index: &dictionary) { differ += 1 }
        }
        #expect(differ == 0)
        #expect(ours == theirs)
        #expect(index.count == ours.count)
        // Names that all collide make probes long: the index goes over to SipHash, once.
        #expect(index.usesSipHash == colliding)
    }

    /// Equal means equal bytes: the two spellings of "é" (precomposed, and e with a combining
    /// accent), which String's == equates, are two names.
    @Test func aStringIndexKeepsTwoSpellingsApart() {
        var table: [String] = []
        var index = StringIndex()
        #expect(table.intern("caf\u{E9}", index: &index) == 0)
        #expect(table.intern("cafe\u{301}", index: &index) == 1)
        #expect(table.intern("caf\u{E9}", index: &index) == 0)
    }
}
