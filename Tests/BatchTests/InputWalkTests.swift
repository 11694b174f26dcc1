// How batch walks an input folder: links to report files are read under the link's name, links
// to folders (and a link loop) are passed over, the output folder inside the input is not read
// back, and the census counts exactly the files the reader hands out. What the walk cannot read
// (a dangling link, a pipe, a name that is not UTF-8) is counted and named, not passed over in
// silence.

import Foundation
import TestSupport
import Testing

@testable import Batch

@Suite(.enabled(if: BatchFixture.samplesAvailable, "no Samples reports and builds"))
struct InputWalkTests {
    @Test func linksToFoldersArePassedOver() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let crash = try BatchFixture.sampleCrash()
        let input = fixture.root + "/in"
        try BatchFixture.write(crash, to: input + "/real/x.crash")
        try BatchFixture.write(crash, to: input + "/real/deeper/y.crash")
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: input + "/linked", withDestinationPath: "real")
        try fm.createSymbolicLink(atPath: input + "/alias.crash", withDestinationPath: "real/x.crash")
        try fm.createSymbolicLink(atPath: input + "/real/deeper/loop", withDestinationPath: "..")
        try fm.createSymbolicLink(atPath: input + "/gone.crash", withDestinationPath: "missing.crash")
        let output = input + "/out"
        let configuration = BatchFixture.configuration([input], into: output)
        #expect(InputCensus(configuration).files == 4)
        let summary = try BatchRunner(configuration: configuration, service: try BatchFixture.service()).run()
        #expect(summary.counts.files == 4)
        #expect(summary.skippedFiles.map(\.path) == [input + "/gone.crash"])
        #expect(summary.inputErrors.isEmpty)
        #expect(Set(BatchFixture.files(in: output).keys) == ["alias.crash", "real/x.crash", "real/deeper/y.crash"])
    }

    /// A report whose name is not UTF-8 cannot be opened by a String path: it is counted as
    /// unreadable, named with its bytes repaired, and the reason says what to do. A pipe is
    /// skipped with its reason. The census counts both, as the run does.
    @Test func namesThatCannotBeReadAreCountedAndNamed() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let crash = try BatchFixture.sampleCrash()
        let input = fixture.root + "/in"
        try BatchFixture.write(crash, to: input + "/good.crash")
        // "bad\xff.crash": written through the file system's bytes, as no String can name it.
        let raw = (Array((input + "/bad").utf8) + [0xFF] + Array(".crash".utf8) + [0]).map { CChar(bitPattern: $0) }
        let descriptor = open(raw, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        try #require(descriptor >= 0)
        #expect(crash.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == crash.count)
        close(descriptor)
        #expect(mkfifo(input + "/pipe.crash", 0o600) == 0)
        let configuration = BatchFixture.configuration([input], into: fixture.root + "/out")
        #expect(InputCensus(configuration).files == 3)
        let summary = try BatchRunner(configuration: configuration, service: try BatchFixture.service()).run()
        #expect(summary.counts.files == 3, "\(summary.table())")
        #expect(summary.counts.written == 1)
        #expect(summary.counts.unreadable == 1)
        let skipped = Dictionary(uniqueKeysWithValues: summary.skippedFiles.map { ($0.path, $0.reason) })
        #expect(skipped[input + "/bad\u{FFFD}.crash"]?.contains("not valid UTF-8") == true, "\(skipped)")
        #expect(skipped[input + "/pipe.crash"]?.contains("not a regular file") == true, "\(skipped)")
        #expect(summary.counts.skippedLinks == 1 && summary.counts.skippedNames == nil, "\(summary.table())")
        #expect(summary.table().contains("skipped (link or special) 1\n"), "\(summary.table())")
    }

    /// A loop of links cannot be looked at; it is counted as unreadable with the system's words,
    /// not as a link to a file that does not exist (which is skipped).
    @Test func aLoopOfLinksIsUnreadableNotDangling() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let crash = try BatchFixture.sampleCrash()
        let input = fixture.root + "/in"
        try BatchFixture.write(crash, to: input + "/good.crash")
        let files = FileManager.default
        try files.createSymbolicLink(atPath: input + "/loop-a.crash", withDestinationPath: "loop-b.crash")
        try files.createSymbolicLink(atPath: input + "/loop-b.crash", withDestinationPath: "loop-a.crash")
        try files.createSymbolicLink(atPath: input + "/gone.crash", withDestinationPath: "missing.crash")
        let configuration = BatchFixture.configuration([input], into: fixture.root + "/out")
        #expect(InputCensus(configuration).files == 4)
        let summary = try BatchRunner(configuration: configuration, service: try BatchFixture.service()).run()
        #expect(summary.counts.files == 4, "\(summary.table())")
        #expect(summary.counts.written == 1)
        #expect(summary.counts.unreadable == 2, "\(summary.table())")
        let reasons = Dictionary(uniqueKeysWithValues: summary.skippedFiles.map { ($0.path, $0.reason) })
        let loop = String(cString: strerror(ELOOP))
        #expect(reasons[input + "/loop-a.crash"]?.contains(loop) == true, "\(reasons)")
        #expect(reasons[input + "/loop-b.crash"]?.contains(loop) == true, "\(reasons)")
        #expect(reasons[input + "/gone.crash"]?.contains("does not exist") == true, "\(reasons)")
    }
}
