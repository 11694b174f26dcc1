// Runs the built `symbolicate` executable as a user would, capturing stdout, stderr and the
// exit status, so CLI tests check exactly what scripts see.

import Foundation
import TestSupport

struct CLIResult {
    var status: Int32
    var stdout: [UInt8]
    var stderr: String
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
}

enum CLI {
    /// The executable next to the test bundle (`swift test` builds every product).
    static var executable: String { Repository.executable ?? Paths.repository + "/.build/debug/symbolicate" }

    /// Runs `symbolicate` (or `executable`, a program that runs it, such as setpriv) with `args`,
    /// away from any real store (no SYMBOLICATE_STORE, and the default store under an XDG_DATA_HOME
    /// that does not exist, unless `environment` says otherwise).
    static func run(
        _ args: [String], stdin: [UInt8]? = nil, environment: [String: String] = [:],
        executable: String = CLI.executable
    ) throws -> CLIResult {
        var env = ["SYMBOLICATE_STORE": "", "XDG_DATA_HOME": "/nonexistent/symbolicate-test-data"]
        env.merge(environment) { $1 }
        let result = try ProcessRunner.run(executable, args, stdin: stdin, environment: env)
        return CLIResult(status: result.status, stdout: result.stdout, stderr: result.stderrText)
    }
}

/// The fixture folders, under the names the CLI tests use.
enum Paths {
    static var repository: String { Repository.root }
    static var corpus: String { Repository.corpus }
    static var samples: String { Repository.samples }

    /// Corpus files of the given MANIFEST format prefixes.
    static func corpusFiles(formatPrefixes: [String]) throws -> [String] {
        Repository.corpusFiles(formatPrefixes: formatPrefixes)
    }
}
