// The Swift runtime's own crash reports, text and JSON, symbolicated from a stripped build's
// separate debug file. A program is built at test time (`-Onone` and `-O`), crashed once
// unstripped with `symbolicate=full` (the runtime's answer: mangled symbols, files and lines,
// inline chains) and once stripped with `symbolicate=off`; our answer for the second report must
// name the same functions and lines at the same offsets into the image (ASLR moves the addresses
// between runs).

import Foundation
import Reports
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

@Suite(.enabled(if: SwiftCrash.available, "swiftc, binutils or the Swift runtime's crash reports are missing here"))
struct SwiftBacktraceTests {
    /// An image's first and last address in a report.
    struct Span {
        var base: UInt64
        var end: UInt64
        func offset(_ address: UInt64) -> UInt64? { address >= base && address <= end ? address - base : nil }
    }

    /// A file as the runtime names it: it joins a DWARF directory `/` and a name `/<compiler-generated>`
    /// into `//<compiler-generated>`, where llvm-symbolizer (and we) say `/<compiler-generated>`.
    static func file(_ path: String) -> String {
        path.hasPrefix("//") ? String(path.dropFirst()) : path
    }

    static func hex(_ value: Any?) -> UInt64? {
        (value as? String).flatMap { $0.hasPrefix("0x") ? UInt64($0.dropFirst(2), radix: 16) : nil }
    }

    /// Each frame in the image at `path` of a runtime JSON report, by offset into the image: its
    /// inline chain, innermost first, as `symbol file:line`.
    static func jsonChains(_ bytes: [UInt8], path: String) throws -> [UInt64: [String]] {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let images = try #require(root["images"] as? [[String: Any]])
        let image = try #require(images.first { $0["path"] as? String == path }, "no image \(path)")
        let span = Span(base: try #require(hex(image["baseAddress"])), end: try #require(hex(image["endOfText"])))
        var chains: [UInt64: [String]] = [:]
        for thread in root["threads"] as? [[String: Any]] ?? [] {
            var pending: [String] = []
            for frame in thread["frames"] as? [[String: Any]] ?? [] {
                guard let symbol = frame["symbol"] as? String, let address = hex(frame["address"]) else {
                    pending = []
                    continue
                }
                let location = frame["sourceLocation"] as? [String: Any]
                let level = "\(symbol) \(file(location?["file"] as? String ?? "?")):\(location?["line"] as? Int ?? -1)"
                if frame["inlined"] as? Bool == true {
                    pending.append(level)
                    continue
                }
                if let offset = span.offset(address) { chains[offset] = pending + [level] }
                pending = []
            }
        }
        return chains
    }

    /// The same for a text report: `FILE:LINE` of each level (the column the runtime adds dropped).
    static func textChains(_ bytes: [UInt8], path: String) throws -> [UInt64: [String]] {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        var span: Span?
        for line in lines where line.hasSuffix(" " + path) {
            let range = line.split(separator: " ")[0].split(separator: "\u{2013}")
            if range.count == 2, let lo = hex(String(range[0])), let hi = hex(String(range[1])) {
                span = Span(base: lo, end: hi)
            }
        }
        let image = try #require(span, "no image \(path)")
        var chains: [UInt64: [String]] = [:]
        var pending: [String] = []
        for line in lines {
            let words = line.split(separator: " ")
            guard let first = words.first, Int(first) != nil, let address = words.first(where: { $0.hasPrefix("0x") }),
                let value = hex(String(address)), let at = line.range(of: " at ", options: .backwards)
            else {
                pending = []
                continue
            }
            var location = line[at.upperBound...].split(separator: ":").map(String.init)
            if location.count == 3 { location.removeLast() }
            let level = file(location.joined(separator: ":"))
            if words.contains("[inlined]") {
                pending.append(level)
                continue
            }
            if let offset = image.offset(value) { chains[offset] = pending + [level] }
            pending = []
        }
        return chains
    }

    static func check(_ flags: [String], format: String) throws {
        let folder = try Repository.scratchFolder("swift-backtrace")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let binary = try SwiftCrash.build(SwiftCrash.source, flags, in: folder)
        let referee = try SwiftCrash.crash(binary, "symbolicate=full,format=\(format)", in: folder)
        let (stripped, debug) = try SwiftCrash.split(binary)
        let report = try SwiftCrash.crash(stripped, "symbolicate=off,format=\(format)", in: folder)

        let service = SymbolicationService(locator: try SymbolPathLocator(paths: [debug]))
        let processed = try service.process(report, format: nil)
        #expect(processed.report.format == (format == "json" ? .swiftBacktraceJSON : .swiftBacktrace))
        let chains = format == "json" ? jsonChains : textChains
        let expected = try chains(referee, binary)
        let ours = try chains(processed.output, stripped)
        // -Onone: the frames of every function of the program; -O: the inline chain where it crashed.
        let minimum = flags.contains("-O") ? 1 : 6
        #expect(expected.count >= minimum, "the runtime named only \(expected.count) frames")
        for (offset, chain) in expected {
            #expect(ours[offset] == chain, "offset 0x\(String(offset, radix: 16))")
        }
    }

    /// Builds: the toolchain's default linker (gold: the first mapping is the code), and lld
    /// and ld.bfd, whose code segment comes after a read-only one, so an image's base (its lowest
    /// mapping) is not where its code starts.
    static let builds: [[String]] = [["-Onone"], ["-O"], ["-Onone", "-use-ld=lld"], ["-O", "-use-ld=bfd"]]

    @Test(arguments: builds)
    func jsonReportsNameWhatTheRuntimeNames(_ flags: [String]) throws {
        try Self.check(flags, format: "json")
    }

    @Test(arguments: [builds[0], builds[3]])
    func textReportsNameWhatTheRuntimeNames(_ flags: [String]) throws {
        try Self.check(flags, format: "text")
    }
}
