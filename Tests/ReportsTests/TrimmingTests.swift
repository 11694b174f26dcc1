// trimmingCharacters(in:), as the parsers trim fields: ASCII characters off both ends, a text
// with nothing to trim answered as it is (the common case, taken without walking it), non-ASCII
// ends kept, and a set with a non-ASCII character compared as Characters.

import SymbolicateModel
import Testing

struct TrimmingTests {
    @Test(arguments: [
        (" \tKit\t ", " \t", "Kit"), ("Kit", " \t", "Kit"), ("", " \t", ""), ("   ", " ", ""),
        ("(1.0)", "()", "1.0"), ("(1.0", "()", "1.0"), ("é ", " ", "é"), (" é", " ", "é"), ("é", " ", "é"),
        ("«Kit»", "«»", "Kit"), ("Kit", "«»", "Kit"), (" a b ", " ", "a b"),
    ])
    func trims(_ text: String, _ chars: String, _ expected: String) {
        #expect(text.trimmingCharacters(in: chars) == expected)
        #expect(text[...].trimmingCharacters(in: chars) == expected)
    }
}
