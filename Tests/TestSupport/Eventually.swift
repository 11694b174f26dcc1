// Waiting for an event instead of a time: a test that needs another thread or process to have
// done something (a sender blocked, a lock taken, a log line written, a watcher's pass) waits for
// that condition with a generous deadline, so it neither fails on a slow, loaded machine nor
// waits long on a fast one. The deadline only bounds a test that would otherwise hang.

import Foundation

public enum Eventually {
    /// The default deadline: long enough for a machine running the suite under load.
    public static let patience: Double = 60

    /// Polls `condition` every few milliseconds until it holds (true) or `seconds` pass (false).
    public static func waitFor(seconds: Double = patience, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(5_000)
        }
        return try condition()
    }
}
