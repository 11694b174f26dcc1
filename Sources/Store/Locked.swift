// Locked: a value behind a mutex, for state that threads share: the store's catalog connection,
// the pools of build-file readers, the cache of open build files, and the symbolication caches.
// The value is only touched inside `withLock`, and an object taken out of it (a pooled reader)
// is owned by the one thread that took it until it is put back.
//
// The lock is a pthread mutex (NSLock), not Synchronization's Mutex: on Linux a contended Mutex
// waits and hands over in the kernel (a priority-inheritance futex), which ThreadSanitizer cannot
// see, so every contended section looked like a race to `make tsan` (a four-thread counter
// under Mutex.withLock counts right and is still reported). pthread mutexes are what TSan models.

import Foundation

public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
