// symbolicate-bench: in-process address lookups per second, for Benchmarks/run.sh.
//
//   symbolicate-bench lookups --store DIR --uuid UUID [--arch ARCH] [--dsym PATH] [--count N] ...
//       opens the build through SymbolStore.source(for:arch:) and times lookups on one thread;
//       then checks a sample of the answers against SymbolTable.lookup on the dSYM itself
//       (--dsym, else the path the build was imported from) and exits 1 on any difference.
//   symbolicate-bench lookups --file DSYM [--uuid UUID] [--count N] ...
//       the same with the SymbolTable read from the file, for comparison (load time included).
//
// Arguments are parsed by hand (no dependencies). The figures are printed as `key: value` lines,
// which run.sh reads. Exit codes: 0 done, 1 failure or mismatch, 64 usage error.

import Foundation
import Store
import SymbolicateModel

let usage = """
    usage: symbolicate-bench lookups (--store DIR --uuid UUID | --file DSYM [--uuid UUID]) [options]

    Times single-threaded address lookups (inline chains included) for one build.

    options:
      --store DIR              the symbol store holding the build
      --file DSYM              read the build's SymbolTable from this symbol file instead
      --uuid UUID              the build (required with --store)
      --arch ARCH              the architecture to ask the store for (default: any)
      --dsym PATH              symbol file to check answers against (default: where the build came from)
      --count N                pseudo-random addresses in __TEXT (default 200000); every range
                               start of the build is added to them
      --seed N                 seed of the pseudo-random addresses (default 1)
      --addresses FILE         use this address list (one hex address a line) instead
      --write-addresses FILE   write the address list used to FILE
      --min-seconds S          repeat the list until S seconds have passed (default 2)
      --check N                compare N addresses with the dSYM (default 5000; 0 skips)
      -h, --help               this text
    """

struct Options {
    var store: String?
    var file: String?
    var uuid: BuildID?
    var arch: Arch?
    var dsym: String?
    var count = 200_000
    var seed: UInt64 = 1
    var addresses: String?
    var writeAddresses: String?
    var minimumSeconds = 2.0
    var check = 5000

    struct UsageError: Error {
        var message: String
    }

    init(arguments: [String]) throws {
        guard let command = arguments.first else { throw UsageError(message: "missing command") }
        guard command == "lookups" else { throw UsageError(message: "unknown command '\(command)'") }
        var rest = arguments.dropFirst()
        func value(_ flag: String) throws -> String {
            guard let next = rest.popFirst() else { throw UsageError(message: "\(flag) needs a value") }
            return next
        }
        func number<T: LosslessStringConvertible>(_ flag: String, _: T.Type) throws -> T {
            let text = try value(flag)
            guard let parsed = T(text) else { throw UsageError(message: "\(flag): '\(text)' is not a number") }
            return parsed
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--store": store = try value(flag)
            case "--file": file = try value(flag)
            case "--uuid":
                let text = try value(flag)
                guard let id = BuildID(string: text) else {
                    throw UsageError(message: "--uuid: '\(text)' is not a UUID")
                }
                uuid = id
            case "--arch": arch = Arch(try value(flag))
            case "--dsym": dsym = try value(flag)
            case "--count": count = try number(flag, Int.self)
            case "--seed": seed = try number(flag, UInt64.self)
            case "--addresses": addresses = try value(flag)
            case "--write-addresses": writeAddresses = try value(flag)
            case "--min-seconds": minimumSeconds = try number(flag, Double.self)
            case "--check": check = try number(flag, Int.self)
            default: throw UsageError(message: "unknown option '\(flag)'")
            }
        }
        guard (store == nil) != (file == nil) else {
            throw UsageError(message: "give exactly one of --store and --file")
        }
        if store != nil, uuid == nil { throw UsageError(message: "--store needs --uuid") }
        guard count >= 0, check >= 0, minimumSeconds >= 0 else {
            throw UsageError(message: "counts must not be negative")
        }
    }
}

func report(_ key: String, _ value: String) {
    print("\(key): \(value)")
}

func run(_ options: Options) throws -> Int32 {
    let clock = ContinuousClock()
    let source: any SymbolSource
    var reference: SymbolTable?
    let openStart = clock.now
    if let storePath = options.store, let uuid = options.uuid {
        let store = try SymbolStore(directory: storePath)
        guard let found = try store.source(for: uuid, arch: options.arch) else {
            throw SymbolicateError(.notFound, "the store has no build \(uuid.uuidString)", path: storePath)
        }
        source = found
        report("mode", "store")
    } else if let file = options.file {
        let table = try LookupBenchmark.loadTable(path: file, uuid: options.uuid)
        source = table
        reference = table
        report("mode", "file")
    } else {
        throw SymbolicateError(.internal, "no source chosen")
    }
    report("open_seconds", String(format: "%.4f", LookupBenchmark.seconds(openStart.duration(to: clock.now))))
    let build = source.build
    report("build", "\(build.uuid.uuidString) \(build.arch) \(build.name) (\(build.kind.rawValue))")

    let needsTable = options.addresses == nil || options.check > 0
    if reference == nil, needsTable {
        let path = options.dsym ?? build.path
        let loadStart = clock.now
        reference = try LookupBenchmark.loadTable(path: path, uuid: build.uuid)
        report("reference", path)
        report(
            "reference_load_seconds", String(format: "%.3f", LookupBenchmark.seconds(loadStart.duration(to: clock.now)))
        )
    }

    let addresses: [UInt64]
    if let list = options.addresses {
        addresses = try LookupBenchmark.readAddresses(path: list)
    } else {
        addresses = LookupBenchmark.addresses(build: build, table: reference, count: options.count, seed: options.seed)
    }
    if let out = options.writeAddresses {
        try LookupBenchmark.write(addresses: addresses, to: out)
    }
    report("addresses", "\(addresses.count)")
    if let table = reference {
        report("ranges", "\(table.ranges.count)")
        report("locations", "\(table.locations.count)")
        report("functions", "\(table.functions.count)")
    }

    let timing = try LookupBenchmark.time(source, addresses: addresses, minimumSeconds: options.minimumSeconds)
    report("lookups", "\(timing.lookups)")
    report("seconds", String(format: "%.3f", timing.seconds))
    report("cpu_seconds", String(format: "%.3f", timing.cpuSeconds))
    report("lookups_per_second", String(format: "%.0f", timing.perSecond))
    report("lookups_per_cpu_second", String(format: "%.0f", timing.perCPUSecond))
    let answered = Double(timing.answered) / Double(max(1, timing.lookups))
    report("answered_fraction", String(format: "%.3f", answered))
    report("levels_per_answer", String(format: "%.2f", Double(timing.frames) / Double(max(1, timing.answered))))
    report("checksum", String(timing.checksum, radix: 16))

    guard options.check > 0, let table = reference, options.store != nil else { return 0 }
    let (checked, mismatches) = try LookupBenchmark.compare(
        source, with: table, addresses: addresses, sampleSize: options.check)
    report("checked", "\(checked)")
    report("mismatches", "\(mismatches.count)")
    for mismatch in mismatches.prefix(5) {
        let address = "0x" + String(mismatch.address, radix: 16)
        FileHandle.standardError.write(
            Data(
                "mismatch at \(address):\n  dSYM:  \(LookupBenchmark.describe(mismatch.expected))\n  store: \(LookupBenchmark.describe(mismatch.found))\n"
                    .utf8))
    }
    return mismatches.isEmpty ? 0 : 1
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exit(arguments.isEmpty ? 64 : 0)
}
do {
    let options = try Options(arguments: arguments)
    exit(try run(options))
} catch let error as Options.UsageError {
    FileHandle.standardError.write(Data("symbolicate-bench: \(error.message)\n\n\(usage)\n".utf8))
    exit(64)
} catch {
    FileHandle.standardError.write(Data("symbolicate-bench: \(error)\n".utf8))
    exit(1)
}
