// LookupBenchmark: the measurements behind `symbolicate-bench lookups`. It builds a deterministic
// address list for one build (pseudo-random addresses inside __TEXT from a fixed seed, plus the
// start of every non-gap range of the build's symbol table, so every range is hit at least once),
// times single-threaded lookups through any SymbolSource (a store build file or an in-memory
// SymbolTable), and checks a spread-out sample of the answers against SymbolTable.lookup on the
// table read straight from the dSYM. Timing keeps a running checksum of every answer so no
// lookup can be optimised away.

import Foundation
import ObjectFiles
import SymbolicateModel

struct LookupBenchmark {
    /// The outcome of timing one source over one address list.
    struct Timing {
        var lookups: Int
        var seconds: Double
        /// CPU time of the timing thread: what the lookups cost on a machine shared with others.
        var cpuSeconds: Double
        /// Total inline-chain levels returned (a lookup with no answer counts 0).
        var frames: Int
        var answered: Int
        var checksum: UInt64

        var perSecond: Double { seconds > 0 ? Double(lookups) / seconds : 0 }
        var perCPUSecond: Double { cpuSeconds > 0 ? Double(lookups) / cpuSeconds : 0 }
    }

    /// One address whose answers differ between the two sources.
    struct Mismatch {
        var address: UInt64
        var expected: [SymbolTable.Resolved]?
        var found: [SymbolTable.Resolved]?
    }

    /// SplitMix64: a tiny, fixed pseudo-random sequence, so every run uses the same addresses.
    struct SplitMix {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// `count` pseudo-random addresses in [textVMAddress, textVMAddress + textSize), followed by
    /// the start of every range of `table` that is not a gap (when a table is given).
    static func addresses(build: BuildInfo, table: SymbolTable?, count: Int, seed: UInt64) -> [UInt64] {
        var result: [UInt64] = []
        result.reserveCapacity(count + (table?.ranges.count ?? 0))
        var random = SplitMix(state: seed)
        if build.textSize > 0 {
            for _ in 0..<count {
                result.append(build.textVMAddress + random.next() % build.textSize)
            }
        }
        if let table {
            for range in table.ranges where range.location != SymbolTable.none {
                result.append(range.start)
            }
        }
        return result
    }

    /// Reads an address list written by `write(addresses:to:)`: one hexadecimal address a line.
    /// The addresses of a list, one hexadecimal address a line (`0x` optional). Parsed from the
    /// bytes: startup.sh counts a lookup's instructions as the difference of two whole runs over
    /// lists of different lengths, so reading a line must cost next to nothing beside a lookup
    /// (String's split and UInt64(_:radix:) cost a third of one).
    static func readAddresses(path: String) throws -> [UInt64] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SymbolicateError(.io, "cannot read the address list", path: path)
        }
        var result: [UInt64] = []
        var value: UInt64 = 0
        var digits = 0
        var line = 1
        var afterZero = false
        func fail() -> SymbolicateError {
            SymbolicateError(.badInput, "line \(line) is not a hexadecimal address", path: path)
        }
        for byte in data {
            switch byte {
            case UInt8(ascii: "\n"):
                if afterZero, digits == 0 { throw fail() }
                if digits > 0 { result.append(value) }
                (value, digits, afterZero) = (0, 0, false)
                line += 1
            case UInt8(ascii: "x") where digits == 1 && value == 0 && !afterZero:
                (digits, afterZero) = (0, true)
            default:
                let nibble: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
                default: throw fail()
                }
                guard digits < 16 else { throw fail() }
                value = value << 4 | UInt64(nibble)
                digits += 1
            }
        }
        if digits > 0 { result.append(value) }
        return result
    }

    static func write(addresses: [UInt64], to path: String) throws {
        var text = ""
        text.reserveCapacity(addresses.count * 12)
        for address in addresses {
            text += "0x" + String(address, radix: 16) + "\n"
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
            throw SymbolicateError(.io, "cannot write the address list", path: path)
        }
    }

    /// Looks up every address once, repeating the whole list until at least `minimumSeconds`
    /// have passed, on the calling thread. A short warm-up pass runs first, untimed.
    static func time(_ source: any SymbolSource, addresses: [UInt64], minimumSeconds: Double) throws -> Timing {
        var timing = Timing(lookups: 0, seconds: 0, cpuSeconds: 0, frames: 0, answered: 0, checksum: 0)
        guard !addresses.isEmpty else { return timing }
        for address in addresses.prefix(1000) {
            timing.checksum &+= UInt64(try source.lookup(address)?.count ?? 0)
        }
        timing.checksum = 0
        let clock = ContinuousClock()
        let start = clock.now
        let cpuStart = threadCPUSeconds()
        repeat {
            for address in addresses {
                if let chain = try source.lookup(address) {
                    timing.answered += 1
                    timing.frames += chain.count
                    for level in chain {
                        timing.checksum &+= UInt64(level.line ?? 0) &+ level.entry &+ UInt64(level.function.utf8.count)
                    }
                }
            }
            timing.lookups += addresses.count
            timing.seconds = seconds(start.duration(to: clock.now))
        } while timing.seconds < minimumSeconds
        timing.cpuSeconds = threadCPUSeconds() - cpuStart
        return timing
    }

    /// Compares `candidate` with `reference` on `sampleSize` addresses spread evenly over the list.
    static func compare(
        _ candidate: any SymbolSource, with reference: any SymbolSource, addresses: [UInt64], sampleSize: Int
    ) throws -> (checked: Int, mismatches: [Mismatch]) {
        guard !addresses.isEmpty else { return (0, []) }
        let step = max(1, addresses.count / max(1, sampleSize))
        var checked = 0
        var mismatches: [Mismatch] = []
        var index = 0
        while index < addresses.count {
            let address = addresses[index]
            let expected = try reference.lookup(address)
            let found = try candidate.lookup(address)
            if expected != found {
                mismatches.append(Mismatch(address: address, expected: expected, found: found))
            }
            checked += 1
            index += step
        }
        return (checked, mismatches)
    }

    /// The one slice of the symbol file at `path` that has `uuid`, read into a SymbolTable.
    static func loadTable(path: String, uuid: BuildID?) throws -> SymbolTable {
        let slices = try ObjectFile.slices(atPath: path)
        let chosen: [ObjectSlice]
        if let uuid {
            chosen = slices.filter { $0.info.uuid == uuid }
        } else {
            chosen = slices
        }
        guard let slice = chosen.first else {
            let what = uuid.map { "no slice with UUID \($0.uuidString)" } ?? "no slice"
            throw SymbolicateError(.notFound, "\(what) in the symbol file", path: path)
        }
        guard chosen.count == 1 else {
            throw SymbolicateError(.badInput, "several slices; pass --uuid to choose one", path: path)
        }
        return try slice.loadSymbolTable()
    }

    /// CPU time used so far by the calling thread.
    static func threadCPUSeconds() -> Double {
        var now = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) == 0 else { return 0 }
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    static func describe(_ chain: [SymbolTable.Resolved]?) -> String {
        guard let chain else { return "(none)" }
        return chain.map { level in
            "\(level.function) @\(String(level.entry, radix: 16)) \(level.file ?? "?"):\(level.line ?? 0)"
        }.joined(separator: " <- ")
    }
}
