// Progress inside one slice's import: a dSYM's import reports how much of its DWARF has been read
// after every batch of units, rising to the whole, through importSlice and through importPaths
// (which the CLI's progress line reads).

import Foundation
import Import
import ObjectFiles
import SymbolicateModel
import TestSupport
import Testing

@testable import Store

struct ImportProgressTests {
    static var dSYM: String {
        SampleFiles.samplesBuild + "/ios-arm64-dwarf5/HoldApp.app.dSYM/Contents/Resources/DWARF/HoldApp"
    }

    @Test(.needsSamples)
    func aSliceReportsTheDWARFItHasRead() throws {
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder() + "/store")
        let slice = try #require(try ObjectFile.slices(atPath: Self.dSYM).first)
        let seen = Locked<[(Int, Int)]>([])
        _ = try store.importSlice(slice, source: Self.dSYM) { done, total in seen.withLock { $0.append((done, total)) }
        }
        let reports = seen.withLock { $0 }
        #expect(!reports.isEmpty)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.0 <= $1.0 && $0.1 == $1.1 })
        let last = try #require(reports.last)
        #expect(last.0 == last.1 && last.1 > 0, "\(reports)")
    }

    @Test(.needsSamples)
    func importPathsPassesItOn() throws {
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder() + "/store")
        let seen = Locked<[ImportProgress]>([])
        let summary = store.importPaths([Self.dSYM]) { progress in seen.withLock { $0.append(progress) } }
        #expect(summary.failures.isEmpty && summary.imported.count == 1)
        let inside = seen.withLock { $0 }.filter { $0.sliceBytesTotal > 0 }
        #expect(!inside.isEmpty)
        #expect(inside.last.map { $0.sliceBytesDone == $0.sliceBytesTotal && $0.item == Self.dSYM } == true)
    }
}
