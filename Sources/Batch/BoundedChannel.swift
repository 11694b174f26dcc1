// BoundedChannel: the hand-off between the batch reader thread and the worker threads. `send`
// blocks while the channel holds `capacity` items, which is what keeps memory bounded whatever
// the size of the input: the reader can never run more than `capacity` reports ahead of the
// workers. `close` lets the receivers drain what is left and then see nil; `cancel` drops
// everything and wakes both sides at once, for when a worker hits a failure that must stop the
// run. One mutex and two condition variables (not full, not empty), so a send wakes one
// receiver and a receive wakes one sender instead of every waiting thread.

import Foundation

final class BoundedChannel<Element: Sendable>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let notFull = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let notEmpty = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var buffer: [Element?]
    private var head = 0
    private var count = 0
    private var closed = false
    private var cancelled = false

    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        self.buffer = Array(repeating: nil, count: max(1, capacity))
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(notFull, nil)
        pthread_cond_init(notEmpty, nil)
    }

    deinit {
        pthread_cond_destroy(notEmpty)
        pthread_cond_destroy(notFull)
        pthread_mutex_destroy(mutex)
        notEmpty.deallocate()
        notFull.deallocate()
        mutex.deallocate()
    }

    /// Blocks while the channel is full. Returns false (and drops `element`) when the channel
    /// was closed or cancelled, so a producer knows to stop.
    @discardableResult
    func send(_ element: Element) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while count == capacity && !closed && !cancelled {
            pthread_cond_wait(notFull, mutex)
        }
        guard !closed, !cancelled else { return false }
        buffer[(head + count) % capacity] = element
        count += 1
        pthread_cond_signal(notEmpty)
        return true
    }

    /// Blocks until an element is available; nil once the channel is closed and drained, or
    /// as soon as it is cancelled.
    func receive() -> Element? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while count == 0 && !closed && !cancelled {
            pthread_cond_wait(notEmpty, mutex)
        }
        guard !cancelled, count > 0 else { return nil }
        let element = buffer[head]
        buffer[head] = nil
        head = (head + 1) % capacity
        count -= 1
        pthread_cond_signal(notFull)
        return element
    }

    /// No more sends; receivers drain what is buffered, then get nil.
    func close() {
        pthread_mutex_lock(mutex)
        closed = true
        pthread_cond_broadcast(notEmpty)
        pthread_cond_broadcast(notFull)
        pthread_mutex_unlock(mutex)
    }

    /// Stops both sides now: buffered elements are dropped, blocked senders and receivers return.
    func cancel() {
        pthread_mutex_lock(mutex)
        cancelled = true
        for i in buffer.indices { buffer[i] = nil }
        count = 0
        pthread_cond_broadcast(notEmpty)
        pthread_cond_broadcast(notFull)
        pthread_mutex_unlock(mutex)
    }

    var isCancelled: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return cancelled
    }
}
