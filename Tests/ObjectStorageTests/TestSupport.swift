// Paths and tools the object-storage tests share: the Fixtures folder beside this file, and
// whether moto_server (the stand-in S3 server) and python3 are on PATH.

import Foundation

import enum TestSupport.ProcessRunner

enum TestSupport {
    static let directory: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
    static var fixtures: String { directory + "/Fixtures" }

    /// The first executable named `name` on PATH.
    static func which(_ name: String) -> String? { ProcessRunner.which(name) }
}
