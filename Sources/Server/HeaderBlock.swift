// The request's header block, checked before any route runs (RFC 9112 section 5), where
// libmicrohttpd 0.9.75 is lenient in ways that let a proxy in front and this server read one
// request as two: whitespace before a field's colon (it keeps `Content-Length ` as another
// field's name, so the body is read as the next request), obs-fold (it appends a continuation
// line to the field's *name*), a bare CR (it ends a line there), a NUL in a value (the value ends
// there and the rest of the line is dropped). Its strict mode (MHD_OPTION_STRICT_FOR_CLIENT 1)
// covers only a missing Host in HTTP/1.1, and is left off: libmicrohttpd 0.9.75's own 400s (that
// one, and a Content-Length it cannot parse: `+5`, `-5`, `5,5`) send their header block twice,
// as its error path builds the header block and its state machine then builds it again. The
// missing Host is refused here instead (Exchange.framingProblem); the Content-Length values it
// refuses itself, closing the connection after that doubled 400, before any route runs.
//
// What libmicrohttpd leaves behind tells these apart: it parses the header block in place in
// its read buffer, turning each line ending's CR and LF into NULs and each colon into a NUL, and
// keeps pointers to the names and values there. So a field's value starts right after its name,
// the colon and optional whitespace; the next field's name starts two bytes (CR LF) after the
// value's end; and the blank line follows the last one. A name moved elsewhere (obs-fold made it
// longer), a one-byte line ending (bare CR or bare LF) or bytes after a value's end (a NUL) breaks
// that layout, and the request is refused with 400 and the connection closed.

import Foundation

enum HeaderBlock {
    /// One field as libmicrohttpd keeps it: pointers into its read buffer.
    struct Field {
        var name: UnsafePointer<CChar>
        var value: UnsafePointer<CChar>
    }

    /// Most whitespace accepted between a colon and the value (beyond it the layout check gives up
    /// and refuses, rather than read far).
    static let maxLeadingWhitespace = 256

    /// Why the header block is unsafe to serve, or nil.
    static func problem(_ fields: [Field]) -> String? {
        for (index, field) in fields.enumerated() {
            let nameLength = strlen(field.name)
            let name = String(cString: field.name)
            guard nameLength > 0, UnsafeRawBufferPointer(start: field.name, count: nameLength).allSatisfy(isTokenByte)
            else {
                return "the header field name \"\(printable(name))\" is not a token"
                    + " (whitespace before the colon is not allowed)"
            }
            // The value follows the name, its colon (now a NUL) and whitespace; else the name was moved.
            let afterName = field.name + nameLength + 1
            let gap = afterName.distance(to: field.value)
            guard gap >= 0, gap <= maxLeadingWhitespace,
                UnsafeRawBufferPointer(start: afterName, count: gap).allSatisfy({ $0 == 0x20 || $0 == 0x09 })
            else {
                return "the header field \(printable(name)) continues on a folded line (obs-fold is not accepted)"
            }
            let valueLength = strlen(field.value)
            // RFC 9110 section 5.5: a value holds visible characters, spaces and tabs; a CR here is
            // a bare CR that libmicrohttpd did not end the line at.
            if UnsafeRawBufferPointer(start: field.value, count: valueLength).contains(where: {
                ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F
            }) {
                return "the header field \(printable(name)) holds a control character (a bare CR or LF)"
            }
            let end = field.value + valueLength
            if index + 1 < fields.count {
                // CR and LF, both now NULs, then the next name.
                guard end.distance(to: fields[index + 1].name) == 2, end[1] == 0 else {
                    return "the header field \(printable(name)) ends with a bare CR or LF, or holds a NUL"
                }
            } else if end[1] != 0 {
                // A line ending, then the blank line: at least two NULs, both inside the block (a
                // third byte may lie past what was read, so it is not looked at).
                return "the header field \(printable(name)) holds a NUL"
            }
        }
        return nil
    }

    /// RFC 9110 section 5.6.2: tchar.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// A Content-Length value is one or more digits (RFC 9110 section 8.6), nothing else.
    /// True when `text` holds `word`, compared as bytes: what a request's target (`%00`) and
    /// Accept header (`application/json`) are searched with, once per request each
    /// (Foundation's search cost about 4 K instructions a call).
    static func holds(_ text: String, _ word: String) -> Bool {
        let (t, w) = (Array(text.utf8), Array(word.utf8))
        guard let first = w.first, w.count <= t.count else { return w.isEmpty }
        for i in 0...(t.count - w.count) where t[i] == first && t[i..<(i + w.count)].elementsEqual(w) { return true }
        return false
    }

    static func isPlainLength(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    private static func printable(_ text: String) -> String {
        String(
            text.unicodeScalars.prefix(64).map { $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" })
    }
}
