// A count and its noun in the lines people read (`imported 1 build`, `UIKit: 2 frames named by
// the report`): the noun takes its plural unless the count is 1, as in `0 builds`.

extension DefaultStringInterpolation {
    /// `"\(count: n, "build")"`: `1 build`, `2 builds`; `plural` for nouns that do not add an s.
    public mutating func appendInterpolation(count: Int, _ noun: String, plural: String? = nil) {
        appendLiteral("\(count) " + (count == 1 ? noun : plural ?? noun + "s"))
    }
}
