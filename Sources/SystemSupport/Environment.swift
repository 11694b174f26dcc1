// Reading a few environment variables without copying the whole environment: Foundation's
// ProcessInfo.environment builds a dictionary of every variable on each call, which cost a
// report answered from the store more than its lookups did.

#if canImport(Glibc)
    import Glibc
#endif

public enum Environment {
    /// The variable `name`, or nil when it is not set.
    public static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The variables among `names` that are set, by name.
    public static func values(of names: [String]) -> [String: String] {
        var found: [String: String] = [:]
        for name in names {
            if let value = value(name) { found[name] = value }
        }
        return found
    }
}
