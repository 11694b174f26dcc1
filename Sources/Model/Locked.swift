// Locked: a value behind a mutex, for state that threads share: the store's catalog connection,
// the pools of build-file readers and of libcurl handles, the cache of open build files, the
// symbolication caches, counters. The value is only touched inside `withLock`, and an object
// taken out of it (a pooled reader) is owned by the one thread that took it until it is put back.
//
// The lock is a pthread mutex, not Synchronization's Mutex: on Linux a contended Mutex waits and
// hands over in the kernel (a priority-inheritance futex), which ThreadSanitizer cannot see, so
// every contended section looked like a race to `make tsan` (a four-thread counter under
// Mutex.withLock counts right and is still reported). pthread mutexes are what TSan models.
// `make lint` refuses Synchronization's Mutex in Sources.

#if canImport(Glibc)
    import Glibc
#endif

public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` on the value with the lock held; what `body` throws is thrown as it is.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
