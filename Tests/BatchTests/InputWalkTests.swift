// How batch walks an input folder: links to report files are read under the link's name, links
// to folders (and a link loop) are passed over, the output folder inside the input is not read
// back, and the census counts exactly the files the reader hands out.

import Foundation
import TestSupport
import Testing

@testable import Batch

@Suite(.enabled(if: BatchFixture.samplesAvailable, "no Samples reports and builds"))
struct InputWalkTests {
    @Test func linksToFoldersArePassedOver() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let crash = try BatchFixture.sample(
            try #require(BatchFixture.sampleReportNames.first { $0.hasSuffix(".crash") }))
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
        #expect(InputCensus(configuration).files == 3)
        let summary = try BatchRunner(configuration: configuration, service: try BatchFixture.service()).run()
        #expect(summary.counts.files == 3)
        #expect(summary.inputErrors.isEmpty)
        #expect(Set(BatchFixture.files(in: output).keys) == ["alias.crash", "real/x.crash", "real/deeper/y.crash"])
    }
}
