// `symbolicate serve` as a child process on a free loopback port, for the tests that need a real
// server process (kill it, restart it, run two against one bucket): started with `--listen
// 127.0.0.1:0`, and its port read from its first log line,
// {"event":"listening","address":"127.0.0.1:PORT"}.

import Foundation

public enum ServeProcess {
    /// The server wrote no listening line before its standard error closed.
    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Starts `executable serve --listen 127.0.0.1:0 ARGUMENTS`, with `environment` added to this
    /// process's, and waits for its listening line; answers the process and its port. Standard
    /// output goes nowhere; standard error is read up to that line. A server that writes none is
    /// killed and reported with what it wrote.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:]
    ) throws -> (process: Process, port: Int) {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: executable)
        server.arguments = ["serve", "--listen", "127.0.0.1:0"] + arguments
        server.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let log = Pipe()
        server.standardError = log
        server.standardOutput = FileHandle.nullDevice
        try server.run()
        var text = ""
        while text.range(of: #""listening".*\n"#, options: .regularExpression) == nil {
            let chunk = log.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let range = text.range(of: #"127\.0\.0\.1:[0-9]+"#, options: .regularExpression),
            let port = Int(text[range].split(separator: ":")[1])
        else {
            kill(server.processIdentifier, SIGKILL)
            throw StartError(description: "the server did not start: \(text)")
        }
        return (server, port)
    }
}
