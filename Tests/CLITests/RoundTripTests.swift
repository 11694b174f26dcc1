// Issue-level promise: every Apple crash report in the corpus, run through `symbolicate` with no
// symbols, comes back byte-identical, exit 0, with the UUIDs of the images it needs on stderr.

import Foundation
import TestSupport
import Testing

@Suite struct RoundTripTests {
    @Test(.tags(.corpus), .needsCorpus)
    func corpusReportsComeBackByteIdentical() throws {
        let files = try Paths.corpusFiles(formatPrefixes: ["apple-text", "apple-ips"]).filter {
            !$0.hasSuffix(".plist") && FileManager.default.fileExists(atPath: $0)
        }
        #expect(files.count >= 10)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rt-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (i, file) in files.enumerated() {
            let out = dir + "/\(i).out"
            let r = try CLI.run(["--no-store", "-o", out, file])
            #expect(r.status == 0, "\(file): \(r.stderr)")
            let input = try Data(contentsOf: URL(fileURLWithPath: file))
            let output = try? Data(contentsOf: URL(fileURLWithPath: out))
            #expect(output == input, "\(file) was not written back byte-identical")
        }
    }
}
