// Helpers for the store tests: scratch folders, symbol tables made by hand (a seeded generator
// with functions, inline chains three deep, gaps and duplicate starts), an exhaustive comparison
// of a store lookup against SymbolTable.lookup, and running command-line tools (zip, tar,
// sqlite3, flock) to build archives and hold locks from another process.

import Foundation
import SymbolicateModel
import TestSupport
import Testing

@testable import Store

enum StoreFixtures {
    /// This run's folder under the system temporary folder; made once, after removing the folders
    /// of earlier runs whose process is gone (so at most the last run's files stay for a look).
    static let runFolder: String = {
        let temporary = NSTemporaryDirectory()
        let prefix = "store-tests-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [] where name.hasPrefix(prefix)
        {
            if let pid = Int32(name.dropFirst(prefix.count)), kill(pid, 0) != 0, errno == ESRCH {
                try? FileManager.default.removeItem(atPath: temporary + name)
            }
        }
        return temporary + prefix + "\(getpid())"
    }()

    /// A fresh, empty folder for one test.
    static func scratchFolder(_ name: String = #function) throws -> String {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        let path = runFolder + "/\(safe)-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func uuid(_ n: UInt8) -> BuildID {
        BuildID(bytes: [0x5A, 0x11, n, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, n])
    }

    static func info(_ uuid: BuildID, arch: Arch = .arm64, kind: SymbolKind = .debugInfo, name: String = "HandMade")
        -> BuildInfo
    {
        BuildInfo(
            uuid: uuid, arch: arch, name: name, textVMAddress: 0x1_0000_0000, textSize: 0x10_0000, kind: kind,
            path: "/nowhere/\(name)")
    }

    /// A table of `functionCount` functions from `base`: each function is split into ranges, some
    /// of which sit in code inlined one to three levels deep; gaps separate some functions; every
    /// tenth function repeats a range start (the later range must win).
    static func table(
        _ info: BuildInfo, functionCount: Int, seed: UInt64, base: UInt64 = 0x1_0000_4000, symbolsOnly: Bool = false
    ) -> SymbolTable {
        var rng = SplitMix64(seed: seed)
        var table = SymbolTable(build: info)
        if !symbolsOnly { table.files = (0..<12).map { "/src/Module\($0 % 3)/File\($0).swift" } }
        var address = base
        for f in 0..<functionCount {
            let entry = address
            let fn = UInt32(table.functions.count)
            table.functions.append(.init(name: "$s8HandMade4funcyyF\(f)", entry: entry))
            let outer = UInt32(table.locations.count)
            let file = symbolsOnly ? SymbolTable.none : UInt32(rng.below(table.files.count))
            table.locations.append(
                .init(
                    function: fn, file: file, line: symbolsOnly ? SymbolTable.none : UInt32(10 + f),
                    parent: SymbolTable.none))
            table.ranges.append(.init(start: address, location: outer))
            address += UInt64(4 + 4 * rng.below(8))
            if !symbolsOnly {
                for _ in 0..<rng.below(4) {
                    // An inlined callee chain ending in `outer`.
                    var parent = outer
                    for depth in 0...rng.below(3) {
                        let callee = UInt32(rng.below(table.functions.count))
                        let loc = UInt32(table.locations.count)
                        table.locations.append(
                            .init(
                                function: callee, file: UInt32(rng.below(12)),
                                line: UInt32(depth == 0 ? 0 : 100 + depth),
                                parent: parent))
                        parent = loc
                    }
                    table.ranges.append(.init(start: address, location: parent))
                    address += UInt64(4 * (1 + rng.below(6)))
                    table.ranges.append(.init(start: address, location: outer))
                    address += UInt64(4 * (1 + rng.below(6)))
                }
            }
            if f % 10 == 9 {
                table.ranges.append(.init(start: address - 4, location: outer))
                table.ranges.append(.init(start: address - 4, location: SymbolTable.none))
            }
            if rng.below(3) == 0 {
                table.ranges.append(.init(start: address, location: SymbolTable.none))
                address += 16
            }
        }
        table.ranges.append(.init(start: address, location: SymbolTable.none))
        return table
    }

    /// Every address worth asking about: each range start, the byte before and after it, the
    /// middle of each range, both ends of the address space, and `extra` random addresses.
    static func probeAddresses(_ table: SymbolTable, extra: Int = 200, seed: UInt64 = 7) -> [UInt64] {
        var rng = SplitMix64(seed: seed)
        var result: [UInt64] = [0, 1, .max, .max - 1, 0x8000_0000_0000_0000, 0x7FFF_FFFF_FFFF_FFFF]
        for (i, r) in table.ranges.enumerated() {
            result.append(r.start)
            if r.start > 0 { result.append(r.start - 1) }
            if r.start < .max { result.append(r.start + 1) }
            if i + 1 < table.ranges.count, table.ranges[i + 1].start > r.start {
                result.append(r.start + (table.ranges[i + 1].start - r.start) / 2)
            }
        }
        if let first = table.ranges.first?.start, let last = table.ranges.last?.start, last > first {
            for _ in 0..<extra { result.append(first + rng.next() % (last - first + 64)) }
        }
        return result
    }

    /// What `source` answers at `address`; a failed lookup is recorded as an issue and answers nil.
    static func answer(
        _ source: any SymbolSource, _ address: UInt64, sourceLocation: SourceLocation = #_sourceLocation
    ) -> [SymbolTable.Resolved]? {
        do { return try source.lookup(address) } catch {
            Issue.record(error, sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Asserts that `source` answers every probe exactly as `table` does; returns the probe count.
    @discardableResult
    static func expectSameLookups(
        _ source: any SymbolSource, _ table: SymbolTable, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Int {
        let addresses = probeAddresses(table)
        var mismatches = 0
        func stored(_ address: UInt64) -> [SymbolTable.Resolved]? {
            answer(source, address, sourceLocation: sourceLocation)
        }
        for address in addresses where stored(address) != table.lookup(address) {
            mismatches += 1
            if mismatches <= 5 {
                let text =
                    "0x\(String(address, radix: 16)): store \(String(describing: stored(address))) "
                    + "table \(String(describing: table.lookup(address)))"
                Issue.record(Comment(rawValue: text), sourceLocation: sourceLocation)
            }
        }
        #expect(mismatches == 0, "\(mismatches) of \(addresses.count) lookups differ", sourceLocation: sourceLocation)
        return addresses.count
    }

    /// Runs a tool; returns its exit status and standard error.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], in folder: String? = nil) throws -> (
        status: Int32, stderr: String
    ) {
        let result = try ProcessRunner.run(tool, arguments, directory: folder)
        return (result.status, result.stderrText)
    }

    static func tool(_ name: String) -> String? { ProcessRunner.which(name) }

    /// Files of a store folder (relative paths), to assert that a failed import changed nothing.
    static func snapshot(_ store: SymbolStore) throws -> [String] {
        let builds = try FileManager.default.contentsOfDirectory(atPath: store.buildsDirectory).map { "builds/" + $0 }
        let temps = try FileManager.default.contentsOfDirectory(atPath: store.temporaryDirectory).map { "tmp/" + $0 }
        let rows = try store.list().map {
            "\($0.uuid)-\($0.arch)-\($0.kind.rawValue)-\($0.importedAt.timeIntervalSince1970)"
        }
        return (builds + temps + rows).sorted()
    }
}
