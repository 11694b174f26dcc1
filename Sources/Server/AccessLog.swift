// The access log: one JSON object per request on stderr, written with a single write(2) so lines
// from different threads never interleave. It carries what operators need (time, method, path,
// route, status, sizes, duration, the name of the token used, why the server closed a connection
// it could not answer) and never a header value or a body, so tokens and reports cannot leak into
// logs. Status 0 means nothing was answered.

import Foundation
import Reports
import Store
import SymbolicateModel
import SystemSupport

struct AccessLog: Sendable {
    /// The file descriptor lines go to (stderr), or -1 to stay silent (tests that count nothing).
    var fd: Int32 = 2

    func record(
        method: String, path: String, route: String, status: Int, bytesIn: Int, bytesOut: Int, seconds: Double,
        clientGone: Bool, token: String? = nil, closed: String? = nil
    ) {
        guard fd >= 0 else { return }
        let line = AccessLog.line(
            time: AccessLog.timestamp(), method: method, path: path, route: route, status: status, bytesIn: bytesIn,
            bytesOut: bytesOut, seconds: seconds, clientGone: clientGone, token: token, closed: closed)
        // A log line that cannot be written is dropped: logging never fails a request.
        _ = line.withUnsafeBytes { OutputFile.writeAll(fd, $0) }
    }

    /// One request's line, written as bytes (it is built once per request).
    static func line(
        time: String, method: String, path: String, route: String, status: Int, bytesIn: Int, bytesOut: Int,
        seconds: Double, clientGone: Bool, token: String? = nil, closed: String? = nil
    ) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(320)
        func raw(_ text: StaticString) {
            out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
        func number(_ value: Int) {
            if value >= 0 {
                ASCII.appendDecimal(UInt64(value), to: &out)
            } else {
                out.append(contentsOf: String(value).utf8)
            }
        }
        raw("{\"time\":\"")
        out.append(contentsOf: time.utf8)
        raw("\",\"method\":")
        JSONWriter.appendQuoted(String(method.prefix(32)), to: &out)
        raw(",\"path\":")
        JSONWriter.appendQuoted(String(path.prefix(512)), to: &out)
        raw(",\"route\":")
        JSONWriter.appendQuoted(route, to: &out)
        raw(",\"status\":")
        number(status)
        raw(",\"bytes_in\":")
        number(bytesIn)
        raw(",\"bytes_out\":")
        number(bytesOut)
        // Milliseconds with three decimals.
        let micros = max(0, Int((seconds * 1_000_000).rounded()))
        raw(",\"duration_ms\":")
        number(micros / 1000)
        out.append(UInt8(ascii: "."))
        let fraction = micros % 1000
        if fraction < 100 { out.append(0x30) }
        if fraction < 10 { out.append(0x30) }
        number(fraction)
        if clientGone { raw(",\"client_gone\":true") }
        if let closed {
            raw(",\"closed\":")
            JSONWriter.appendQuoted(closed, to: &out)
        }
        if let token {
            raw(",\"token\":")
            JSONWriter.appendQuoted(token, to: &out)
        }
        raw("}\n")
        return out
    }

    /// A message that is not about one request (start, stop), in the same JSON shape.
    func event(_ message: String, _ fields: [String: String] = [:]) {
        guard fd >= 0 else { return }
        var line = "{\"time\":\"\(AccessLog.timestamp())\",\"event\":\(JSONWriter.quote(message))"
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            line += ",\(JSONWriter.quote(key)):\(JSONWriter.quote(value))"
        }
        line += "}\n"
        let bytes = Array(line.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// `2026-11-30T04:50:12.345Z`, built without `String(format:)` (it runs once per request).
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        // `YYYY-MM-DDTHH:MM:SS.mmmZ`, written as bytes: one line of the log each request.
        var out: [UInt8] = []
        out.reserveCapacity(24)
        // `value` in `width` digits, zeros in front; a value that does not fit keeps its digits.
        func pad(_ value: Int, _ width: Int) {
            var limit = 1
            for _ in 0..<width { limit *= 10 }
            guard value >= 0, value < limit else {
                out += Array(String(value).utf8)
                return
            }
            let start = out.count
            out.append(contentsOf: repeatElement(0x30, count: width))
            var rest = value
            var k = start + width - 1
            while rest > 0 {
                out[k] = UInt8(truncatingIfNeeded: rest % 10) + 0x30
                rest /= 10
                k -= 1
            }
        }
        pad(Int(parts.tm_year) + 1900, 4)
        out.append(UInt8(ascii: "-"))
        pad(Int(parts.tm_mon) + 1, 2)
        out.append(UInt8(ascii: "-"))
        pad(Int(parts.tm_mday), 2)
        out.append(UInt8(ascii: "T"))
        pad(Int(parts.tm_hour), 2)
        out.append(UInt8(ascii: ":"))
        pad(Int(parts.tm_min), 2)
        out.append(UInt8(ascii: ":"))
        pad(Int(parts.tm_sec), 2)
        out.append(UInt8(ascii: "."))
        pad(Int(now.tv_nsec / 1_000_000), 3)
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }
}
