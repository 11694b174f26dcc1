// Runs the built `symbolicate` executable as a user would, capturing stdout, stderr and the
// exit status, so CLI tests check exactly what scripts see.

import Foundation

struct CLIResult {
    var status: Int32
    var stdout: [UInt8]
    var stderr: String
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
}

enum CLI {
    /// The executable next to the test bundle (`swift test` builds every product).
    static var executable: String {
        let bundleDir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for dir in [bundleDir, bundleDir.deletingLastPathComponent()] {
            let candidate = dir.appendingPathComponent("symbolicate").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return Paths.repository + "/.build/debug/symbolicate"
    }

    /// Runs `symbolicate` (or `executable`, a program that runs it, such as setpriv) with `args`.
    static func run(
        _ args: [String], stdin: [UInt8]? = nil, environment: [String: String] = [:], executable: String = CLI.executable
    ) throws -> CLIResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = args
        var env = ProcessInfo.processInfo.environment
        env["SYMBOLICATE_STORE"] = "/nonexistent/symbolicate-test-store"
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin)) }
        try input.fileHandleForWriting.close()
        // Read both pipes concurrently so a full stderr pipe cannot block the child.
        nonisolated(unsafe) var errData = Data()
        let errThread = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
        errThread.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errThread.isFinished { usleep(1000) }
        return CLIResult(
            status: process.terminationStatus, stdout: [UInt8](outData), stderr: String(decoding: errData, as: UTF8.self))
    }
}

enum Paths {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    static let corpus = URL(fileURLWithPath: repository).deletingLastPathComponent().path + "/shared/corpus/real"
    static let samples = repository + "/Samples"

    static var corpusAvailable: Bool { FileManager.default.fileExists(atPath: corpus + "/MANIFEST.tsv") }

    /// Corpus files of the given MANIFEST format prefixes.
    static func corpusFiles(formatPrefixes: [String]) throws -> [String] {
        let manifest = try String(contentsOfFile: corpus + "/MANIFEST.tsv", encoding: .utf8)
        return manifest.split(separator: "\n").dropFirst().compactMap { line in
            let cols = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard cols.count > 5 else { return nil }
            return formatPrefixes.contains { cols[5].hasPrefix($0) } ? corpus + "/" + cols[0] : nil
        }
    }
}
