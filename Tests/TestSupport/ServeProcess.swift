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
    /// output goes nowhere; standard error is read up to that line, then read and dropped. A
    /// server that writes none is killed and reported with what it wrote.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:]
    ) throws -> (process: Process, port: Int) {
        let (server, ports) = try start(executable, arguments, environment: environment, listeners: 1)
        return (server, ports[0])
    }

    /// The same for a server with more than one listener (`--admin-listen 127.0.0.1:0`): waits
    /// for `listeners` listening lines and answers their ports in the order the server wrote them.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], listeners: Int
    ) throws -> (process: Process, ports: [Int]) {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: executable)
        server.arguments = ["serve", "--listen", "127.0.0.1:0"] + arguments
        server.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let log = Pipe()
        server.standardError = log
        server.standardOutput = FileHandle.nullDevice
        try server.run()
        var text = ""
        var ports: [Int] = []
        while ports.count < listeners {
            let chunk = log.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            ports = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                .filter { $0.contains(#""listening""#) }
                .compactMap { line in
                    line.range(of: #"127\.0\.0\.1:[0-9]+"#, options: .regularExpression).flatMap {
                        Int(line[$0].split(separator: ":")[1])
                    }
                }
        }
        guard ports.count >= listeners else {
            kill(server.processIdentifier, SIGKILL)
            throw StartError(description: "the server did not start: \(text)")
        }
        // The rest of its log is read and dropped until the server exits: a pipe nobody reads
        // fills (64 KiB of access log lines, a few hundred requests) and then blocks the server
        // in its next log write, which looks like a server that stopped answering.
        let reader = log.fileHandleForReading
        Thread.detachNewThread {
            while !reader.availableData.isEmpty {}
        }
        return (server, ports)
    }
}
