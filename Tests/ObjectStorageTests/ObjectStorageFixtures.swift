// The object-storage tests' own fixtures: the Fixtures folder beside this file (the stand-in
// servers' scripts and the signature test vectors).

import Foundation

enum ObjectStorageFixtures {
    static let directory: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
    static var fixtures: String { directory + "/Fixtures" }
}
