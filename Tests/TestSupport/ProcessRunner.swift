// Running a program to its end from a test: the built `symbolicate`, an LLVM tool, zip, tar,
// a compiler. Standard input is written and standard error drained on other threads while
// standard output is read, so large exchanges cannot deadlock on a full pipe.

import Dispatch
import Foundation

/// What a finished program left: its exit status and both output streams.
public struct ProcessResult: Sendable {
    /// The exit status, or the signal's number when `exited` is false.
    public var status: Int32
    /// False when a signal ended the program.
    public var exited: Bool
    public var stdout: [UInt8]
    public var stderr: [UInt8]

    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

public enum ProcessRunner {
    /// Runs `program` (a path, or a name looked up on PATH) with `arguments` and waits for it.
    /// `stdin` is written and closed (nil: an empty input); `environment` is added to this
    /// process's own; `directory` is the working directory.
    public static func run(
        _ program: String, _ arguments: [String] = [], stdin: [UInt8]? = nil, environment: [String: String] = [:],
        directory: String? = nil
    ) throws -> ProcessResult {
        let process = Process()
        if program.contains("/") {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [program] + arguments
        }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let output = Pipe()
        let errors = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        try process.run()
        let group = DispatchGroup()
        let writer = input.fileHandleForWriting
        DispatchQueue.global().async(group: group) {
            if let stdin, !stdin.isEmpty { try? writer.write(contentsOf: stdin) }
            try? writer.close()
        }
        let errorBytes = Collected()
        let errorReader = errors.fileHandleForReading
        DispatchQueue.global().async(group: group) { errorBytes.set(errorReader.readDataToEndOfFile()) }
        let outputBytes = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return ProcessResult(
            status: process.terminationStatus, exited: process.terminationReason == .exit, stdout: [UInt8](outputBytes),
            stderr: errorBytes.get())
    }

    /// Waits for `process` to end, at most `seconds`; after that it is killed (SIGKILL) and the
    /// answer is false, so a server that ignores its stop signal fails the test instead of
    /// hanging the run.
    public static func waitForExit(_ process: Process, seconds: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        guard process.isRunning else {
            process.waitUntilExit()
            return true
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return false
    }

    /// True in a build under AddressSanitizer or ThreadSanitizer (`make asan`, `make tsan`), whose
    /// processes reserve terabytes of address space at start: import children then need no limit.
    public static let sanitized: Bool = {
        let program = dlopen(nil, RTLD_NOW)
        return dlsym(program, "__asan_init") != nil || dlsym(program, "__tsan_init") != nil
    }()

    /// The first executable named `name` on PATH, or nil.
    public static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Whether `name` is on PATH (tests that need it are disabled without it).
    public static func exists(_ name: String) -> Bool { which(name) != nil }
}

/// Bytes handed from a reading thread to the waiting one.
private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func set(_ new: Data) { lock.withLock { data = new } }
    func get() -> [UInt8] { lock.withLock { [UInt8](data) } }
}
