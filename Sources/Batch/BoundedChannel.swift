// BoundedChannel: the hand-off between the batch reader thread and the worker threads (and
// between the workers and the archive writer). `send` blocks while the channel holds
// `capacity` items, which is what keeps memory bounded whatever the size of the input: the
// reader can never run more than `capacity` reports ahead of the workers. `close` lets the
// receivers drain what is left and then see nil; `cancel` drops everything and wakes both
// sides at once, for when a worker hits a failure that must stop the run.

import Foundation

final class BoundedChannel<Element: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var buffer: [Element?]
    private var head = 0
    private var count = 0
    private var closed = false
    private var cancelled = false

    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        self.buffer = Array(repeating: nil, count: max(1, capacity))
    }

    /// Blocks while the channel is full. Returns false (and drops `element`) when the channel
    /// was closed or cancelled, so a producer knows to stop.
    @discardableResult
    func send(_ element: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while count == capacity && !closed && !cancelled {
            condition.wait()
        }
        guard !closed, !cancelled else { return false }
        buffer[(head + count) % capacity] = element
        count += 1
        condition.broadcast()
        return true
    }

    /// Blocks until an element is available; nil once the channel is closed and drained, or
    /// as soon as it is cancelled.
    func receive() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while count == 0 && !closed && !cancelled {
            condition.wait()
        }
        guard !cancelled, count > 0 else { return nil }
        let element = buffer[head]
        buffer[head] = nil
        head = (head + 1) % capacity
        count -= 1
        condition.broadcast()
        return element
    }

    /// No more sends; receivers drain what is buffered, then get nil.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Stops both sides now: buffered elements are dropped, blocked senders and receivers return.
    func cancel() {
        condition.lock()
        cancelled = true
        for i in buffer.indices { buffer[i] = nil }
        count = 0
        condition.broadcast()
        condition.unlock()
    }

    var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }
}
