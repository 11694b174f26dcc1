// Shell scripts that tests run as executables. A script is written through a descriptor that
// closes on exec: a child forked by another test while the script is being written must not keep
// it open for writing, or running the script fails with ETXTBSY for as long as that child lives.

import Foundation

public enum ExecutableScript {
    /// Writes `text` to a new file with mode 0755 in the temporary folder and returns its path.
    public static func write(_ text: String, named name: String) throws -> String {
        let path = NSTemporaryDirectory() + "\(name)-\(UUID().uuidString).sh"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            written += count
        }
        return path
    }
}
