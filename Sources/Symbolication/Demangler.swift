// Demangling for display: Swift names in the simplified form Apple's crash reports show
// (`ViewController.viewDidLoad()`, `closure #1 in ...`), through the toolchain's Runtime module
// (the runtime's demangler, as `swift demangle --simplified` prints them); C++ names as c++filt prints them, through
// libstdc++'s __cxa_demangle; everything else (C, Objective-C) unchanged.

import CDemangle
import Runtime
import SymbolicateModel

#if canImport(Glibc)
    import Glibc
#endif

public enum Demangler {
    /// Demangled names already computed: the same few hundred functions recur in every report
    /// a server or a batch run sees. Bounded; emptied when full.
    private static let cache = Locked<[String: String]>([:])
    static let cacheLimit = 50_000

    /// The name to show for a symbol as stored in a symbol file (leading `_` already removed).
    public static func displayName(_ raw: String) -> String {
        // Every mangled name starts with `$`, `_` or `@`: one byte tells most C and Objective-C
        // names (`main`, `-[Foo bar]`) from them, before eight prefix comparisons would.
        guard let first = raw.utf8.first,
            first == UInt8(ascii: "$") || first == UInt8(ascii: "_") || first == UInt8(ascii: "@"),
            isSwift(raw) || startsWith(raw, "_Z") || startsWith(raw, "___Z")
        else { return raw }
        if let known = cache.withLock({ $0[raw] }) { return known }
        let name = demangle(raw)
        cache.withLock { names in
            if names.count >= cacheLimit { names.removeAll(keepingCapacity: true) }
            names[raw] = name
        }
        return name
    }

    private static func demangle(_ raw: String) -> String {
        if isSwift(raw) {
            let symbol = SymbolicatedBacktrace.Symbol(
                imageIndex: 0, imageName: "", rawName: raw, offset: 0, sourceLocation: nil)
            let name = symbol.name
            return name.isEmpty ? raw : name
        }
        if raw.hasPrefix("_Z") || raw.hasPrefix("___Z") {
            return demangleCxx(raw) ?? raw
        }
        return raw
    }

    static func isSwift(_ raw: String) -> Bool {
        startsWith(raw, "$s") || startsWith(raw, "$S") || startsWith(raw, "_T0") || startsWith(raw, "$e")
            || startsWith(raw, "_$s") || startsWith(raw, "@__swiftmacro_")
    }

    /// True when `raw`'s UTF-8 starts with the ASCII `prefix`: the prefix comparisons each
    /// looked-up name goes through, without `hasPrefix`'s character-by-character walk.
    private static func startsWith(_ raw: String, _ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        var raw = raw
        return raw.withUTF8 { bytes in
            guard bytes.count >= count else { return false }
            let p = prefix.utf8Start
            for i in 0..<count where bytes[i] != p[i] { return false }
            return true
        }
    }

    static func demangleCxx(_ raw: String) -> String? {
        let name = raw.hasPrefix("___Z") ? String(raw.dropFirst(2)) : raw
        guard let result = symbolicate_demangle_cxx(name) else { return nil }
        defer { free(result) }
        return String(cString: result)
    }
}
