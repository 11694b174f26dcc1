// Editing an Apple text report's header the way tests need: one field's value replaced, the
// column it starts in kept (`Version:        2.0 (20)`), every other byte as it was.

public enum ReportFields {
    /// `bytes` with the value of each header line `field:` replaced by `value`, aligned as Apple
    /// aligns header values (column 16), or one space after the colon for a longer name.
    public static func replacing(_ bytes: [UInt8], _ field: String, with value: String) -> [UInt8] {
        let text = String(decoding: bytes, as: UTF8.self)
        let padding = String(repeating: " ", count: max(1, 14 - field.count))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(field + ":") ? field + ":" + padding + value : String(line)
        }
        return Array(lines.joined(separator: "\n").utf8)
    }
}
