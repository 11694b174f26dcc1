// Which dyld shared cache a report needs: its system images (SystemImages) whose symbols are
// missing, grouped by the OS version and build the report states and by arch, so that the
// summary can say "import the dyld shared cache of 21F79 arm64e" rather than list UIKitCore,
// libdispatch and the rest one by one. A report that states no OS version gets no advice: the
// cache cannot be named.

import Reports
import SymbolicateModel

public struct DyldCacheAdvice: Sendable, Hashable {
    /// The report's OS version line (`iPhone OS 17.5 (21F79)`).
    public var os: String
    /// The build (`21F79`) when the OS version states one.
    public var build: String?
    public var arch: Arch?
    /// Names of the system images missing, in report order.
    public var images: [String]

    /// Which cache: `21F79 arm64e` (the OS version when it states no build).
    public var cache: String { [build ?? os, arch?.rawValue].compactMap { $0 }.joined(separator: " ") }

    /// `import the dyld shared cache of 21F79 arm64e (iPhone OS 17.5 (21F79)): UIKitCore, libdyld.dylib`
    public var summary: String {
        let context = build == nil ? "" : " (\(os))"
        return "import the dyld shared cache of \(cache)\(context): \(images.joined(separator: ", "))"
    }

    /// The advice for `report` given what its symbolication found missing.
    public static func advise(_ report: CrashReport, missing: [BinaryImage]) -> [DyldCacheAdvice] {
        guard let os = ReportSummary(report).os, !os.isEmpty else { return [] }
        let build = Self.build(in: os)
        var out: [DyldCacheAdvice] = []
        for image in missing where SystemImage.isSystem(image) {
            let arch = image.arch ?? report.arch
            if let i = out.firstIndex(where: { $0.arch == arch }) {
                if !out[i].images.contains(image.name) { out[i].images.append(image.name) }
            } else {
                out.append(DyldCacheAdvice(os: os, build: build, arch: arch, images: [image.name]))
            }
        }
        return out
    }

    /// The build in parentheses at the end of an OS version (`... (21F79)`), or nil.
    static func build(in os: String) -> String? {
        guard let open = os.lastIndex(of: "("), let close = os.lastIndex(of: ")"), open < close else { return nil }
        let inside = os[os.index(after: open)..<close]
        guard !inside.isEmpty, inside.allSatisfy({ $0.isLetter || $0.isNumber }) else { return nil }
        return String(inside)
    }
}
