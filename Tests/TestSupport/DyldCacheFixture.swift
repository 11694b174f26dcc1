// Test caches from Samples/dyldcache/make_cache.py, written to a scratch folder at run time,
// and the referee for them: DyldExtractor's `dyldex` (PyPI dyldextractor) and llvm-nm-14 on
// what it extracts. Tests that need either carry the traits below and are skipped, with the
// reason, where they are absent.

import Foundation
import SymbolicateModel
import Testing

public enum CacheFixture {
    public static let script = Repository.samples + "/dyldcache/make_cache.py"
    public static let dyldex: String? = {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/dyldex" }
        return (path + [Repository.root + "/.build/test-venv/bin/dyldex"]).first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }()

    /// Writes a cache into `dir` and returns its main file's path.
    public static func make(_ layout: String, in dir: String, arch: String = "arm64e", extra: [String] = []) throws
        -> String
    {
        let result = try ProcessRunner.run(
            "python3", [script, "--layout", layout, "--arch", arch, "--out", dir, "--name", "cache"] + extra)
        guard result.exited, result.status == 0 else {
            throw SymbolicateError(.internal, "make_cache.py failed: \(result.stderrText)")
        }
        return dir + "/cache"
    }

    /// Defined symbols of a Mach-O file as llvm-nm-14 prints them: address -> names.
    public static func nm(_ path: String) throws -> [(address: UInt64, type: Character, name: String)] {
        let result = try ProcessRunner.run("llvm-nm-14", [path])
        guard result.status == 0 else { throw SymbolicateError(.internal, "llvm-nm-14: \(result.stderrText)") }
        return result.stdoutText.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 2)
            guard parts.count == 3, let address = UInt64(parts[0], radix: 16), let type = parts[1].first else {
                return nil
            }
            return (address, type, String(parts[2]))
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// DyldExtractor's dyldex, on PATH (make test puts the test venv first).
    public static var needsDyldExtractor: Self {
        .enabled(if: CacheFixture.dyldex != nil, "DyldExtractor (dyldex) is not installed: pip install dyldextractor")
    }
    /// python3, which runs make_cache.py.
    public static var needsPython: Self {
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "python3 is not installed")
    }
}
