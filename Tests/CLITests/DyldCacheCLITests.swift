// `symbolicate import` of a dyld shared cache as a user runs it: the main file imports every
// image, a second import is a no-op, a folder holding the cache passes its subcaches over, and
// a report whose frames fall in the cache's images is then symbolicated from the store, each
// frame named as llvm-symbolizer-14 names it from the original dylib's symbol table.

import Foundation
import TestSupport
import Testing

@Suite(.needsExecutable, .needsSamples, .needsPython, .needsReferee)
struct DyldCacheCLITests {
    @Test func aCacheImportsOnceAndSymbolicatesItsFrames() throws {
        let dir = try Repository.scratchFolder("dyldcache-cli")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let main = try CacheFixture.make("ios16", in: dir + "/cache")
        let store = dir + "/store"

        let first = try CLI.run(["import", "--store", store, main])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("imported 2 builds, 0 already present, 0 failed"), "\(first.stderr)")
        let again = try CLI.run(["import", "--store", store, dir + "/cache"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("imported 0 builds, 2 already present, 0 failed"), "\(again.stderr)")

        // Each build records the cache it came from: the header's UUID and OS version, the image's path.
        let header = try #require(FileManager.default.contents(atPath: main))
        let cacheUUID = try #require(BuildIDText.uuid(Array(header[0x58..<0x68])))
        let list = try CLI.run(["list", "--json", "--store", store])
        let builds = try #require(
            try JSONSerialization.jsonObject(with: Data(list.stdoutText.utf8)) as? [[String: Any]])
        #expect(builds.count == 2)
        for build in builds {
            let cache = build["dyld_cache"] as? [String: Any]
            #expect(cache?["uuid"] as? String == cacheUUID, "\(build)")
            #expect(cache?["os_version"] as? String == "17.5", "\(build)")
            #expect(
                (cache?["image_path"] as? String)?.hasSuffix("/" + (build["name"] as? String ?? "?")) == true,
                "\(build)")
        }

        let report = Repository.samplesReports + "/HoldApp-ios-arm64-dwarf4.crash"
        let out = try CLI.run(["--store", store, report])
        #expect(out.status == 0, "\(out.stderr)")
        let binary = Repository.samplesBuild + "/ios-arm64-dwarf4/HoldApp.app/Frameworks/HoldKit.framework/HoldKit"
        let load: UInt64 = 0x1_030a_0000  // the report's HoldKit load address (Samples/build/images.tsv)
        var checked = 0
        for (index, line) in out.stdoutText.split(separator: "\n").enumerated() {
            let columns = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard columns.count >= 5, columns[1] == "HoldKit", columns[2].hasPrefix("0x"),
                let address = UInt64(columns[2].dropFirst(2), radix: 16), let frame = Int(columns[0])
            else { continue }
            let name = columns[3...].joined(separator: " ").components(separatedBy: " + ").first ?? ""
            let lookup = address - load - (frame == 0 ? 0 : 1)
            let referee = try LLVMSymbolizer.levels(obj: binary, arch: nil, addresses: [lookup], demangle: true)
            let expected = referee.first?.last?.function ?? ""
            if expected.hasPrefix("$s") { continue }  // a Swift name: we print it demangled
            #expect(name == expected, "line \(index): \(line)")
            checked += 1
        }
        #expect(checked >= 2)
    }
}

@Suite(.needsExecutable, .needsSamples)
struct DyldCacheAdviceCLITests {
    /// The sample report states `iPhone OS 15.5 (19F77)` and leaves three arm64e system images'
    /// frames without symbols. (Its .ips twin names those frames itself: nothing is missing there.)
    @Test func theSummaryNamesTheCacheToImport() throws {
        let report = "HoldApp-ios-arm64-dwarf4.crash"
        let out = try CLI.run([Repository.samplesReports + "/" + report, Repository.samplesBuild + "/ios-arm64-dwarf4"])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(
            out.stderr.contains(
                "  import the dyld shared cache of 19F77 arm64e (iPhone OS 15.5 (19F77)): libsystem_kernel.dylib,"
                    + " UIKitCore, libdyld.dylib"), "\(out.stderr)")
    }
}

enum BuildIDText {
    /// 16 bytes as a UUID string, uppercase with dashes.
    static func uuid(_ bytes: [UInt8]) -> String? {
        guard bytes.count == 16 else { return nil }
        let hex = bytes.map { String(format: "%02X", $0) }.joined()
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(
                hex[
                    hex.index(
                        hex.startIndex, offsetBy: range.lowerBound)..<hex.index(
                            hex.startIndex, offsetBy: range.upperBound)])
        }
        return parts.joined(separator: "-")
    }
}

/// The import holds one image at a time: a cache 20 times the size of the sample one imports
/// within the 300 MB the README gives (peak RSS, as GNU time reads it), and every image arrives.
@Suite(.needsExecutable, .needsSamples, .needsPython)
struct DyldCacheMemoryTests {
    static let time = "/usr/bin/time"

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: time), "GNU time (Debian package time) is missing"))
    func aCacheTwentyTimesLargerStaysWithinTheBound() throws {
        let dir = try Repository.scratchFolder("dyldcache-memory")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let main = try CacheFixture.make("ios16", in: dir + "/cache", extra: ["--copies", "20"])
        let rss = dir + "/rss"
        let run = try ProcessRunner.run(
            Self.time, ["-f", "%M", "-o", rss, CLI.executable, "import", "--store", dir + "/store", main])
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(run.stderrText.contains("imported 40 builds, 0 already present, 0 failed"), "\(run.stderrText)")
        let kilobytes = try #require(
            Int(try String(contentsOfFile: rss, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kilobytes < 300 * 1024, "peak RSS \(kilobytes / 1024) MB")
    }
}
