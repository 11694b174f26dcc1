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

/// Facts about other processes that tests wait for.
public enum ProcessFacts {
    /// Whether a fresh sqlite3 connection takes the write lock of the database at `path` at once
    /// (and gives it back): false while another process holds it.
    public static func canTakeWriteLock(sqlite3: String = "/usr/bin/sqlite3", _ path: String) -> Bool {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: sqlite3)
        probe.arguments = ["-bail", "-cmd", ".timeout 0", path, "BEGIN IMMEDIATE; ROLLBACK;"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }

    /// Whether process `pid` has a file whose path ends with `suffix` open (from /proc).
    public static func hasOpen(_ pid: pid_t, pathEndingWith suffix: String) -> Bool {
        let folder = "/proc/\(pid)/fd"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return false }
        return names.contains { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + name))?.hasSuffix(suffix) == true
        }
    }
}
