// The table's merge of a walked unit: a unit's function and the symbol's over the same code
// (one name, one entry) are two functions in the unit's walk and one in the table, so two of the
// walk's locations can become one of the table's. The table still holds each location once, as
// one walk over the whole file numbers them.

import SymbolicateModel
import Testing

@testable import ObjectFiles

struct TableMergeTests {
    private let build = BuildInfo(
        uuid: BuildID(bytes: [UInt8](repeating: 7, count: 16)), arch: .arm64, name: "App",
        textVMAddress: 0x1000, textSize: 0x1000, kind: .debugInfo, path: "/App")

    /// `foo` at 0x1000: its DIE covers 0x1000..<0x1100 and its symbol only 0x1000..<0x1080,
    /// every address at line 5 of one file. The symbol's name wins where it covers; past it the
    /// DIE's function speaks, which the table knows as the same function.
    private func info() -> DebugInfo {
        var info = DebugInfo()
        info.names = ["foo"]
        info.files = ["/src/foo.c"]
        info.nodes = [DebugInfo.Node(name: 0, entry: 0x1000, parent: -1, callFile: SymbolTable.none, callLine: 0)]
        info.scopes = [DebugInfo.Scope(start: 0x1000, end: 0x1100, node: 0)]
        info.lines = [DebugInfo.LineInterval(start: 0x1000, end: 0x1100, file: 0, line: 5)]
        info.sequences = [DebugInfo.Sequence(low: 0x1000, high: 0x1100, intervals: 0..<1)]
        info.units = [DebugInfo.Unit(offset: 0, ranges: [(0x1000, 0x1100)], scopes: 0..<1, sequences: 0..<1)]
        return info
    }

    @Test func twoOfAUnitsFunctionsThatAreOneOfTheTablesShareLocations() {
        let symbols = [RawSymbol(address: 0x1000, size: 0x80, name: "foo", order: 0, isCode: true)]
        let table = TableBuilder.build(build: build, debugInfo: info(), symbols: symbols)
        #expect(table.functions == [SymbolTable.Function(name: "foo", entry: 0x1000)])
        #expect(table.locations.count == 1)
        #expect(Set(table.locations.map { "\($0)" }).count == table.locations.count)
        #expect(table.ranges.first?.start == 0x1000)
        #expect(table.lookup(0x1090)?.first?.line == 5)
        #expect(table.lookup(0x1090)?.first?.function == "foo")
    }
}
