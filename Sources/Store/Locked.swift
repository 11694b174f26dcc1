// Locked: a value behind a mutex, for the store's non-Sendable state (the catalog connection,
// the pools of build-file readers, the cache of open build files). Synchronization's Mutex asks
// that values moved in or out be `sending`, which a SQLite connection handed from thread to
// thread cannot prove to the compiler; this wrapper states the rule instead: the value is only
// touched inside `withLock`, and an object taken out of it (a pooled reader) is owned by the
// one thread that took it until it is put back.

import Synchronization

final class Locked<Value>: @unchecked Sendable {
    private let mutex = Mutex(())
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.withLock { _ in try body(&value) }
    }
}
