// BoundedChannel: the hand-off between the batch reader thread and the worker threads. `send`
// blocks while the channel holds `capacity` items, which is what keeps memory bounded whatever
// the size of the input: the reader can never run more than `capacity` reports ahead of the
// workers. `close` lets the receivers drain what is left and then see nil; `cancel` drops
// everything and wakes both sides at once, for when a worker hits a failure that must stop the
// run. One lock and two conditions of it (not full, not empty), so a send wakes one
// receiver and a receive wakes one sender instead of every waiting thread.

import SymbolicateModel

final class BoundedChannel<Element: Sendable>: Sendable {
    private struct State {
        var buffer: [Element?]
        var head = 0
        var count = 0
        var closed = false
        var cancelled = false
        /// Senders waiting for room, receivers waiting for an element.
        var waitingSenders = 0
        var waitingReceivers = 0
    }

    private let state: Locked<State>
    private let notFull = Locked<State>.Condition()
    private let notEmpty = Locked<State>.Condition()

    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        state = Locked(State(buffer: Array(repeating: nil, count: max(1, capacity))))
    }

    /// Blocks while the channel is full. Returns false (and drops `element`) when the channel
    /// was closed or cancelled, so a producer knows to stop.
    @discardableResult
    func send(_ element: Element) -> Bool {
        let capacity = capacity
        var waited = false
        let roomOrEnd: (inout State) -> Bool = { state in
            let ready = state.count < capacity || state.closed || state.cancelled
            if !ready && !waited { (waited, state.waitingSenders) = (true, state.waitingSenders + 1) }
            return ready
        }
        let sent = state.wait(
            on: notFull, until: roomOrEnd,
            then: { state in
                if waited { state.waitingSenders -= 1 }
                guard !state.closed, !state.cancelled else { return false }
                state.buffer[(state.head + state.count) % capacity] = element
                state.count += 1
                return true
            })
        if sent { notEmpty.signal() }
        return sent
    }

    /// Blocks until an element is available; nil once the channel is closed and drained, or
    /// as soon as it is cancelled.
    func receive() -> Element? {
        let capacity = capacity
        var waited = false
        let elementOrEnd: (inout State) -> Bool = { state in
            let ready = state.count > 0 || state.closed || state.cancelled
            if !ready && !waited { (waited, state.waitingReceivers) = (true, state.waitingReceivers + 1) }
            return ready
        }
        let (element, received) = state.wait(
            on: notEmpty, until: elementOrEnd,
            then: { state -> (Element?, Bool) in
                if waited { state.waitingReceivers -= 1 }
                guard !state.cancelled, state.count > 0 else { return (nil, false) }
                let element = state.buffer[state.head]
                state.buffer[state.head] = nil
                state.head = (state.head + 1) % capacity
                state.count -= 1
                return (element, true)
            })
        if received { notFull.signal() }
        return element
    }

    /// No more sends; receivers drain what is buffered, then get nil.
    func close() {
        state.withLock { $0.closed = true }
        notEmpty.broadcast()
        notFull.broadcast()
    }

    /// Stops both sides now: buffered elements are dropped, blocked senders and receivers return.
    func cancel() {
        state.withLock { state in
            state.cancelled = true
            for i in state.buffer.indices { state.buffer[i] = nil }
            state.count = 0
        }
        notEmpty.broadcast()
        notFull.broadcast()
    }

    var isCancelled: Bool {
        state.withLock { $0.cancelled }
    }

    /// How many senders wait for room and receivers for an element now (what a test waits for
    /// instead of sleeping: a sender blocked on a full channel is an event).
    var waiting: (senders: Int, receivers: Int) {
        state.withLock { ($0.waitingSenders, $0.waitingReceivers) }
    }
}
