// Batch over the Swift runtime's own crash reports: a folder holding one crash of a stripped Swift
// program written as text and as JSON (`SWIFT_BACKTRACE=...,symbolicate=off`) is read whole, each
// report counted under its kind, and each written exactly as symbolicating it alone with the
// separate debug file gives it.

import Foundation
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

@testable import Batch

@Suite(.enabled(if: SwiftCrash.available, "swiftc, binutils or the Swift runtime's crash reports are missing here"))
struct SwiftBacktraceBatchTests {
    @Test func textAndJSONReportsAreReadCountedAndWritten() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let binary = try SwiftCrash.build(SwiftCrash.source, ["-Onone"], in: fixture.root)
        let (stripped, debug) = try SwiftCrash.split(binary)
        let reports = [
            "crash.txt": try SwiftCrash.crash(stripped, "symbolicate=off,format=text", in: fixture.root),
            "crash.json": try SwiftCrash.crash(stripped, "symbolicate=off,format=json", in: fixture.root),
        ]
        for (name, bytes) in reports { try BatchFixture.write(bytes, to: fixture.root + "/in/" + name) }
        let service = SymbolicationService(locator: try SymbolPathLocator(paths: [debug]))
        let summary = try BatchRunner(
            configuration: BatchFixture.configuration([fixture.root + "/in"], into: fixture.root + "/out"),
            service: service
        ).run()
        #expect(summary.counts.reportsRead == 2 && summary.counts.unparsable == 0)
        #expect(summary.counts.kinds == ["swift-backtrace": 1, "swift-backtrace-json": 1], "\(summary.counts.kinds)")
        let written = BatchFixture.files(in: fixture.root + "/out")
        for (name, bytes) in reports {
            let alone = try service.process(bytes, format: nil)
            #expect(alone.outcome.symbolicatedFrames >= 6)
            #expect(written[name] == alone.output, "\(name) is not written as symbolicating it alone gives it")
        }
    }
}
