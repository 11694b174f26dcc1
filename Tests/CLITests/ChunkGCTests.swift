// `symbolicate gc` removes the chunks of chunked uploads written more than a day ago from a
// folder store (`blobs/sha1/ab/cdef...`), keeps younger ones, and only lists them with --dry-run.

import Foundation
import TestSupport
import Testing

@Suite(.needsSamples, .needsExecutable)
struct ChunkGCTests {
    @Test func chunksOlderThanADayGo() throws {
        let folder = try Repository.scratchFolder("chunk-gc")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = folder + "/store"
        let dsym = Repository.samplesBuild + "/ios-arm64-dwarf4/HoldKit.framework.dSYM"
        #expect(try CLI.run(["import", "--store", store, dsym]).status == 0)
        // Names need not match contents here: gc goes by age, and this is the layout's path.
        let old = store + "/blobs/sha1/aa/" + String(repeating: "1", count: 38)
        let young = store + "/blobs/sha1/bb/" + String(repeating: "2", count: 38)
        for path in [old, young] {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data("chunk".utf8).write(to: URL(fileURLWithPath: path))
        }
        let twoDaysAgo = Date().addingTimeInterval(-2 * 86_400)
        try FileManager.default.setAttributes([.modificationDate: twoDaysAgo], ofItemAtPath: old)

        let dryRun = try CLI.run(["gc", "--store", store, "--older-than", "30", "--dry-run"])
        #expect(dryRun.status == 0)
        #expect(dryRun.stdoutText.contains("would remove 1 upload chunk older than a day"), "\(dryRun.stdoutText)")
        #expect(FileManager.default.fileExists(atPath: old))

        let gc = try CLI.run(["gc", "--store", store, "--older-than", "30"])
        #expect(gc.status == 0)
        #expect(gc.stdoutText.contains("removed 1 upload chunk older than a day"), "\(gc.stdoutText)")
        #expect(!FileManager.default.fileExists(atPath: old))
        #expect(FileManager.default.fileExists(atPath: young))
    }
}
