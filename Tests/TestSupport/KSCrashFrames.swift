// KSCrashFrames: every frame object of a KSCrash report read with Foundation's JSONSerialization,
// independent of our parser, in document order: the crash's threads, then the recrash report's
// crashed thread. The reports and symbolication tests hold our parser and writer to it.

import Foundation

public enum KSCrashFrames {
    public static func read(_ bytes: [UInt8]) throws -> [[String: Any]] {
        guard let root = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { return [] }
        func threadFrames(_ thread: [String: Any]) -> [[String: Any]] {
            (thread["backtrace"] as? [String: Any])?["contents"] as? [[String: Any]] ?? []
        }
        var out: [[String: Any]] = []
        for thread in (root["crash"] as? [String: Any])?["threads"] as? [[String: Any]] ?? [] {
            out += threadFrames(thread)
        }
        let recrash = (root["recrash_report"] as? [String: Any])?["crash"] as? [String: Any]
        if let thread = recrash?["crashed_thread"] as? [String: Any] { out += threadFrames(thread) }
        return out
    }
}
