// A one-line progress display for long work: redrawn in place on a terminal (at most ten
// times a second), silent otherwise, so logs and pipes stay clean.

import Foundation
import SymbolicateModel

final class ProgressLine: Sendable {
    private let enabled: Bool
    private let last = Locked<(time: UInt64, width: Int)>((0, 0))

    init(enabled: Bool) { self.enabled = enabled }

    func update(_ text: String) {
        guard enabled else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        let line: String? = last.withLock { state in
            guard now - state.time > 100_000_000 else { return nil }
            let clipped = String(text.prefix(100))
            let pad = String(repeating: " ", count: max(0, state.width - clipped.count))
            state = (now, clipped.count)
            return "\r" + clipped + pad
        }
        if let line { Console.raw(line, to: STDERR_FILENO) }
    }

    func finish() {
        guard enabled else { return }
        let width = last.withLock { $0.width }
        if width > 0 { Console.raw("\r" + String(repeating: " ", count: width) + "\r", to: STDERR_FILENO) }
    }

    /// Prints `message` as a line of its own, above the progress line (which the next update
    /// draws again).
    func say(_ message: String) {
        finish()
        last.withLock { $0 = (0, 0) }
        Console.error(message)
    }
}
