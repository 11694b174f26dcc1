// KSCrashDate: a KSCrash `report.timestamp` as Apple's text reports print a date,
// `1970-01-18 03:47:06.000 +0900`, in the local time zone (TZ), as KSCrash's Apple-format
// filter prints it on the device. KSCrash 1.x writes RFC 3339 (`1970-01-17T18:47:06Z`, possibly
// with a fraction), 2.x microseconds since 1970 as a number: both are read; anything else is
// printed as the report has it.

#if canImport(Glibc)
    import Glibc
#endif

enum KSCrashDate {
    static func local(_ entry: Int?, _ tape: JSONTape) -> String {
        guard let entry else { return "" }
        if tape.kind(entry) == .number, let micros = tape.uint64(entry) {
            return format(seconds: Int(clamping: micros / 1_000_000), millis: Int(micros / 1000 % 1000))
        }
        guard let text = tape.string(entry) else { return "" }
        guard let (seconds, millis) = parseRFC3339(text) else { return text }
        return format(seconds: seconds, millis: millis)
    }

    /// Seconds since 1970 and milliseconds of `YYYY-MM-DDTHH:MM:SS[.fff]Z` (UTC only).
    static func parseRFC3339(_ text: String) -> (Int, Int)? {
        let u = Array(text.utf8)
        guard u.count >= 20, u[4] == UInt8(ascii: "-"), u[10] == UInt8(ascii: "T"), u.last == UInt8(ascii: "Z") else {
            return nil
        }
        func digits(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r {
                guard u[i] >= 0x30, u[i] <= 0x39 else { return nil }
                v = v * 10 + Int(u[i] - 0x30)
            }
            return v
        }
        guard let year = digits(0..<4), let month = digits(5..<7), let day = digits(8..<10),
            let hour = digits(11..<13), let minute = digits(14..<16), let second = digits(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var millis = 0
        if u[19] == UInt8(ascii: "."), u.count >= 22 {
            let end = min(u.count - 1, 23)
            guard let fraction = digits(20..<end) else { return nil }
            millis = fraction * [1, 100, 10, 1][end - 20]
        }
        // Days from civil (Howard Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        return (days * 86400 + hour * 3600 + minute * 60 + second, millis)
    }

    /// `yyyy-MM-dd HH:mm:ss.SSS +hhmm` in the local time zone.
    static func format(seconds: Int, millis: Int) -> String {
        var t = time_t(seconds)
        var tm = Glibc.tm()
        guard localtime_r(&t, &tm) != nil else { return "" }
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let offset = tm.tm_gmtoff / 60
        let sign = offset < 0 ? "-" : "+"
        let hhmm = Int32(abs(offset) / 60 * 100 + abs(offset) % 60)
        let zone = sign + String(repeating: "0", count: 4 - String(hhmm).count) + String(hhmm)
        let ms = String(millis)
        return "\(tm.tm_year + 1900)-\(two(tm.tm_mon + 1))-\(two(tm.tm_mday)) \(two(tm.tm_hour)):\(two(tm.tm_min)):"
            + "\(two(tm.tm_sec)).\(String(repeating: "0", count: 3 - ms.count))\(ms) \(zone)"
    }
}
