// Reading inputs and writing outputs for commands: `-` means stdin / stdout, named outputs go
// through OutputFile (renamed into place over regular files, written in place into devices and
// pipes), and messages go to stderr.
//
// Standard output is written with a loop over write(2), not FileHandle (whose `write` traps on
// any error): a full disk or an I/O error is one message and exit 1; a reader that went away
// (EPIPE, seen when SIGPIPE was inherited as ignored) ends the command quietly, as SIGPIPE
// would have.

import Foundation
import SymbolicateModel
import SystemSupport

enum Console {
    /// A message on stderr. A stderr that cannot be written to is not reported anywhere.
    static func error(_ message: String) {
        raw(message + "\n", to: STDERR_FILENO)
    }

    /// Text on stdout; throws as `StandardOutput.write` does.
    static func out(_ text: String) throws {
        try StandardOutput.write(Array(text.utf8))
    }

    /// Bytes on a descriptor, errors ignored (progress lines and messages on stderr).
    static func raw(_ text: String, to fd: Int32) {
        var text = text
        _ = text.withUTF8 { OutputFile.writeAll(fd, UnsafeRawBufferPointer($0)) }
    }

    static var stderrIsTerminal: Bool { isatty(2) != 0 }
}

enum StandardOutput {
    /// The reader of stdout went away: the command stops without a message.
    struct Closed: Error {}

    static func write(_ bytes: [UInt8]) throws {
        let code = bytes.withUnsafeBytes { OutputFile.writeAll(STDOUT_FILENO, $0) }
        switch code {
        case 0: return
        case EPIPE: throw Closed()
        default:
            throw SymbolicateError(
                .io,
                "cannot write to standard output: \(Errno(rawValue: code).description); "
                    + "free some space or write the output elsewhere (-o FILE)")
        }
    }

    /// Ends the process the way a writer to a closed pipe ends: by SIGPIPE, even when the
    /// signal was inherited as ignored or blocked.
    static func endForClosedReader() -> Never {
        signal(SIGPIPE, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        sigprocmask(SIG_UNBLOCK, &set, nil)
        raise(SIGPIPE)
        exit(128 + SIGPIPE)
    }
}

enum IO {
    /// The bytes of a file, or of stdin for `-`; `expected` says what the file should be, for a
    /// folder given instead.
    static func read(_ path: String, expected: String = "a crash report file") throws -> [UInt8] {
        if path == "-" {
            return [UInt8](FileHandle.standardInput.readDataToEndOfFile())
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDir) {
                if isDir.boolValue {
                    throw SymbolicateError(.badInput, "is a folder, expected \(expected)", path: path)
                }
                throw SymbolicateError(.io, "cannot be read (check its permissions)", path: path)
            }
            throw SymbolicateError(.notFound, "no such file", path: path)
        }
        return [UInt8](data)
    }

    /// Writes `bytes` to `path` as OutputFile does, or to stdout for nil / `-`.
    static func write(_ bytes: [UInt8], to path: String?) throws {
        guard let path, path != "-" else {
            try StandardOutput.write(bytes)
            return
        }
        try OutputFile.write(bytes, to: path)
    }
}
