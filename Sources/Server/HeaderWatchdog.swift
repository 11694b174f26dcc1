// Closes connections that stay in the header phase too long. libmicrohttpd 0.9.75 has no timeout
// for the request line and headers: its connection timeout restarts on every byte, so a client
// sending one header line every few seconds holds a connection slot for as long as it likes, and a
// thousand such clients fill the connection table. The daemon tells this watchdog when a
// connection opens, when its request's headers are complete (the first access callback), when the
// request ends (keep-alive: the next request's header phase starts) and when the connection
// closes; a timer shuts down the sockets whose header phase has lasted longer than the limit, and
// libmicrohttpd then sees the end of the stream and frees the slot. Shutting a socket down from
// here is safe because libmicrohttpd reports the close (under the same lock) before it closes the
// descriptor, so a descriptor number is never reused while it is in the table.

import Dispatch
import Foundation
import SymbolicateModel

// @unchecked: the timer (a DispatchSourceTimer, not Sendable) is set up once and only cancelled.
final class HeaderWatchdog: @unchecked Sendable {
    private struct Entry {
        var fd: Int32
        /// When the current header phase began; nil while a request is being served.
        var since: UInt64?
        var shutDown = false
    }

    private let entries = Locked<[UInt: Entry]>([:])
    private let limitNanoseconds: UInt64
    private let timer: any DispatchSourceTimer
    private let onTimeout: @Sendable () -> Void

    /// `seconds`: the longest a connection may take to send a request's headers.
    init(seconds: Int, onTimeout: @escaping @Sendable () -> Void) {
        limitNanoseconds = UInt64(max(1, seconds)) * 1_000_000_000
        self.onTimeout = onTimeout
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "symbolicate.server.header-watchdog"))
        let period = min(1.0, Double(max(1, seconds)) / 4)
        timer.schedule(deadline: .now() + period, repeating: period, leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.sweep() }
        timer.resume()
    }

    func stop() { timer.cancel() }

    func opened(_ connection: UInt, fd: Int32) {
        guard fd >= 0 else { return }
        entries.withLock { $0[connection] = Entry(fd: fd, since: DispatchTime.now().uptimeNanoseconds) }
    }

    func requestStarted(_ connection: UInt) {
        entries.withLock { $0[connection]?.since = nil }
    }

    func requestEnded(_ connection: UInt) {
        entries.withLock { entries in
            if entries[connection] != nil { entries[connection]?.since = DispatchTime.now().uptimeNanoseconds }
        }
    }

    func closed(_ connection: UInt) {
        entries.withLock { $0[connection] = nil }
    }

    private func sweep() {
        let now = DispatchTime.now().uptimeNanoseconds
        let limit = limitNanoseconds
        let count = entries.withLock { entries in
            var count = 0
            for (key, entry) in entries where !entry.shutDown {
                guard let since = entry.since, now > since, now - since > limit else { continue }
                shutdown(entry.fd, Int32(SHUT_RDWR))
                entries[key]?.shutDown = true
                count += 1
            }
            return count
        }
        for _ in 0..<count { onTimeout() }
    }
}
