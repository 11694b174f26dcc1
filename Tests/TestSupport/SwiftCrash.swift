// Swift programs built and crashed at test time, for the Swift runtime's own crash reports: the
// toolchain's `swiftc -g` builds them, `SWIFT_BACKTRACE` makes the runtime write its report to a
// file, and binutils split a build into a stripped binary and a separate debug file. The runtime
// is the referee: its `symbolicate=full` report of the unstripped build says what each frame is.

import Foundation

public enum SwiftCrash {
    /// A program that crashes in an async task, through a generic method, a closure and a helper
    /// that `-O` inlines, on a bad pointer (the runtime's backtrace of a signal walks every frame).
    public static let source = """
        @inline(__always) func store(_ p: UnsafeMutablePointer<Int>, _ v: Int) { p.pointee = v }
        @inline(never) func poke(_ address: Int) -> Int {
            let p = UnsafeMutablePointer<Int>(bitPattern: address)!
            store(p, 42)
            return address
        }
        struct Box<T> { var value: T; @inline(never) func apply(_ f: (T) -> Int) -> Int { f(value) + 1 } }
        @inline(never) func run(_ n: Int) -> Int { Box(value: n).apply { poke($0 * 8) } }
        func later(_ n: Int) async -> Int { await Task.yield(); return run(n) }
        let n = CommandLine.arguments.count
        let t = Task { await later(n) }
        print(await t.value)

        """

    /// True when swiftc, objcopy and strip are here and the runtime writes a report for a crash.
    public static let available: Bool = {
        guard ProcessRunner.exists("swiftc"), ProcessRunner.exists("objcopy"), ProcessRunner.exists("strip"),
            let folder = try? Repository.scratchFolder("swift-crash-probe")
        else { return false }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        guard
            let binary = try? build(
                "let a: [Int] = []\nprint(a[CommandLine.arguments.count])\n", ["-Onone"], in: folder),
            let report = try? crash(binary, "symbolicate=off,format=json", in: folder)
        else { return false }
        return String(decoding: report, as: UTF8.self).contains("\"crashReport\"")
    }()

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Builds `text` with `swiftc -g` and `flags` (`-O`, `-use-ld=lld`) into `folder`; the binary's path.
    public static func build(_ text: String, _ flags: [String], in folder: String, name: String = "crasher") throws
        -> String
    {
        let file = folder + "/" + name + ".swift"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let binary = folder + "/" + name
        let result = try ProcessRunner.run("swiftc", ["-g"] + flags + [file, "-o", binary], directory: folder)
        guard result.exited, result.status == 0 else { throw Failure(description: "swiftc: \(result.stderrText)") }
        return binary
    }

    /// Runs `binary` with `SWIFT_BACKTRACE=enable=yes,<options>` and returns the report it wrote.
    public static func crash(_ binary: String, _ options: String, in folder: String) throws -> [UInt8] {
        let output = folder + "/report-\(UUID().uuidString)"
        let result = try ProcessRunner.run(
            binary, environment: ["SWIFT_BACKTRACE": "enable=yes,\(options),output-to=\(output)"], directory: folder)
        guard !(result.exited && result.status == 0) else { throw Failure(description: "\(binary) did not crash") }
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
    }

    /// Splits `binary` as a release build ships: `NAME.debug` (`objcopy --only-keep-debug`) and
    /// `NAME-stripped` (`strip`, with a `.gnu_debuglink` to the debug file). Both paths.
    public static func split(_ binary: String) throws -> (stripped: String, debug: String) {
        let debug = binary + ".debug"
        let stripped = binary + "-stripped"
        for (tool, arguments) in [
            ("objcopy", ["--only-keep-debug", binary, debug]), ("strip", ["-o", stripped, binary]),
            ("objcopy", ["--add-gnu-debuglink=" + debug, stripped]),
        ] {
            let result = try ProcessRunner.run(tool, arguments)
            guard result.exited, result.status == 0 else { throw Failure(description: "\(tool): \(result.stderrText)") }
        }
        return (stripped, debug)
    }
}
