// Paths and tools the object-storage tests share: the Fixtures folder beside this file, and
// whether moto_server (the stand-in S3 server) and python3 are on PATH.

import Foundation

enum TestSupport {
    static let directory: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
    static var fixtures: String { directory + "/Fixtures" }

    /// The first executable named `name` on PATH.
    static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
