// ByteSize: the one reading of a size a person types (`--cache-size 10G`, `--max-body 1.5G`,
// `--max-import-size 2GiB`): a number of bytes, or a number (a fraction too) followed by K, M, G
// or T, each optionally followed by `i` and `B`, in any case. Units are binary (1K = 1,024
// bytes), as `du -h`, Kubernetes' `Gi` and our own messages count. Every option that takes a
// size reads it here, so `1.5G` and `1.5GiB` mean the same wherever they are accepted.

public enum ByteSize {
    /// The number of bytes `text` says, or nil when it is not a size (negative, empty, an
    /// unknown unit, or 2^63 bytes or more).
    public static func parse(_ text: String) -> Int64? {
        var rest = Substring(text.trimmingASCIISpaces().uppercased())
        if rest.hasSuffix("B") { rest = rest.dropLast() }
        let binaryMark = rest.hasSuffix("I")
        if binaryMark { rest = rest.dropLast() }
        var shift = 0
        if let unit = rest.last, let index = "KMGT".firstIndex(of: unit) {
            shift = 10 * ("KMGT".distance(from: "KMGT".startIndex, to: index) + 1)
            rest = rest.dropLast()
        }
        if binaryMark && shift == 0 { return nil }  // "5iB": an `i` with no unit before it
        guard !rest.isEmpty, rest.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) else { return nil }
        if let whole = Int64(rest) {
            let (bytes, overflow) = whole.multipliedReportingOverflow(by: Int64(1) << shift)
            return overflow ? nil : bytes
        }
        guard let value = Double(rest), value.isFinite else { return nil }
        let bytes = (value * Double(Int64(1) << shift)).rounded(.down)
        return bytes < 9.2e18 ? Int64(bytes) : nil
    }
}

extension String {
    fileprivate func trimmingASCIISpaces() -> Substring {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return s
    }
}
