// Reading inputs and writing outputs for commands: `-` means stdin / stdout, named outputs go
// through OutputFile (renamed into place over regular files, written in place into devices and
// pipes), and messages go to stderr.

import Foundation
import Store
import SymbolicateModel

enum Console {
    static func error(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static var stderrIsTerminal: Bool { isatty(2) != 0 }
}

enum IO {
    /// The bytes of a file, or of stdin for `-`.
    static func read(_ path: String) throws -> [UInt8] {
        if path == "-" {
            return [UInt8](FileHandle.standardInput.readDataToEndOfFile())
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDir) {
                if isDir.boolValue {
                    throw SymbolicateError(.badInput, "is a folder, expected a crash report file", path: path)
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
            FileHandle.standardOutput.write(Data(bytes))
            return
        }
        try OutputFile.write(bytes, to: path)
    }
}
