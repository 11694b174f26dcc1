// What every fuzz target shares: the input as bytes, a scratch folder for targets that need
// files (removed when the process exits), and `invariant`, which ends the process with a message
// when a property the product promises does not hold, so that libFuzzer keeps the input as a
// reproducer just as it does for a trap or a sanitizer report; and `main`, which starts
// libFuzzer's driver with a target's entry point.

import CFuzzer
import Foundation

public enum Fuzz {
    /// libFuzzer's command line (corpus folders, `-max_total_time=`, ...) run over `test`.
    public static func main(_ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, test))
    }

    /// libFuzzer's buffer as an array (the APIs under test take `[UInt8]`).
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// A property of the product failed on this input: say which, and abort (libFuzzer saves the input).
    public static func invariant(_ condition: Bool, _ message: @autoclosure () -> String) {
        guard !condition else { return }
        FileHandle.standardError.write(Data("invariant failed: \(message())\n".utf8))
        abort()
    }

    /// One folder per process under $TMPDIR, created on first use and removed at exit.
    public static let scratch: String = {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        var template = Array("\(base)/symbolicate-fuzz.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let address = buffer.baseAddress else { return false }
            return mkdtemp(address) != nil
        }
        guard made else {
            FileHandle.standardError.write(Data("cannot create a scratch folder under \(base)\n".utf8))
            exit(1)
        }
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        scratchToRemove = path
        atexit { if let path = scratchToRemove { try? FileManager.default.removeItem(atPath: path) } }
        return path
    }()

    nonisolated(unsafe) private static var scratchToRemove: String?

    /// Writes `bytes` to `name` in the scratch folder and returns the path.
    public static func file(_ name: String, _ bytes: [UInt8]) -> String {
        let path = scratch + "/" + name
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            FileHandle.standardError.write(Data("cannot write \(path)\n".utf8))
            exit(1)
        }
        return path
    }
}
