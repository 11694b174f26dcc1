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
//
// Threads that wait for the value to change (a free reader in a pool, room in a channel, the end
// of a progress line) wait on a `Locked.Condition` of the same lock: a pthread condition variable,
// the kind TSan models, in place of NSCondition, DispatchSemaphore or a raw pthread_cond_t.

#if canImport(Glibc)
    import Glibc
#endif

// @unchecked: the value is only reached with the mutex held, which the compiler cannot see.
public final class Locked<Value>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The value, beside a byte that gives the stored property a size and an address of its own
    /// when `Value` is empty (`Locked<Void>`, a lock guarding state kept elsewhere): an access to
    /// a zero-sized value shares its address with the object's other memory, and ThreadSanitizer
    /// reported reads of that memory by other threads as races with it.
    @usableFromInline var storage: (value: Value, padding: UInt8)

    public init(_ value: Value) {
        storage = (value, 0)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` on the value with the lock held; what `body` throws is thrown as it is.
    /// Inlinable, so that each caller's use is specialized (the generic call, with the
    /// closure's context, cost a few hundred instructions where the lock takes tens).
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&storage.value)
    }

    /// Waits with the lock held until `ready` holds for the value (each time `condition` is
    /// signalled, the value is looked at again), then runs `body` with the lock still held.
    public func wait<Result, Failure: Error>(
        on condition: Condition, until ready: (inout Value) -> Bool,
        then body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !ready(&storage.value) { pthread_cond_wait(condition.cond, mutex) }
        return try body(&storage.value)
    }

    /// As `wait(on:until:then:)`, but gives up after `seconds`: `body` is told whether `ready`
    /// held (true) or the time ran out (false).
    public func wait<Result, Failure: Error>(
        on condition: Condition, until ready: (inout Value) -> Bool, timeout seconds: Double,
        then body: (inout Value, Bool) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nanoseconds = Int(now.tv_nsec) + Int((max(0, seconds) * 1e9).rounded())
        var deadline = timespec(
            tv_sec: now.tv_sec + nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var met = ready(&storage.value)
        while !met {
            if pthread_cond_timedwait(condition.cond, mutex, &deadline) == ETIMEDOUT {
                met = ready(&storage.value)
                break
            }
            met = ready(&storage.value)
        }
        return try body(&storage.value, met)
    }

    /// A condition variable that threads waiting on a Locked value sleep on, woken by
    /// `signal` (one waiter) or `broadcast` (all) after the value changed. Timed waits measure
    /// on the monotonic clock, so a change of the wall clock neither ends nor stretches them.
    // @unchecked: a pthread condition variable, which threads share by design.
    public final class Condition: @unchecked Sendable {
        fileprivate let cond: UnsafeMutablePointer<pthread_cond_t>

        public init() {
            cond = .allocate(capacity: 1)
            cond.initialize(to: pthread_cond_t())
            var attributes = pthread_condattr_t()
            pthread_condattr_init(&attributes)
            pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
            pthread_cond_init(cond, &attributes)
            pthread_condattr_destroy(&attributes)
        }

        deinit {
            pthread_cond_destroy(cond)
            cond.deallocate()
        }

        /// Wakes one waiting thread.
        public func signal() { pthread_cond_signal(cond) }
        /// Wakes every waiting thread.
        public func broadcast() { pthread_cond_broadcast(cond) }
    }
}
