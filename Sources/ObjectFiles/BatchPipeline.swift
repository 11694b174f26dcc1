// BatchPipeline: the two-stage pipeline of an import, which reads and walks batch k + 1 of
// units on other threads while the caller merges batch k into the table.

import Foundation
import SymbolicateModel

/// Produces results 0, 1, 2, ... in order, producing result k + 1 on another thread while the
/// caller works on result k. `between` runs after one result is produced and before the next
/// starts, while nothing is being produced.
// @unchecked: `ahead` is only touched by the one thread that calls `take`; the result produced
// ahead crosses threads through `produced`, a Locked value with its condition.
final class BatchPipeline<T>: @unchecked Sendable {
    private let count: Int
    private let produce: @Sendable (Int) throws -> T
    private let between: @Sendable () -> Void
    /// The index of the result being produced ahead, if one is.
    private var ahead: Int?
    /// The result produced ahead, once it is done.
    private let produced = Locked<Result<T, Error>?>(nil)
    private let done = Locked<Result<T, Error>?>.Condition()

    init(count: Int, produce: @escaping @Sendable (Int) throws -> T, between: @escaping @Sendable () -> Void) {
        self.count = count
        self.produce = produce
        self.between = between
    }

    deinit {
        // A caller that stopped early (an error) still waits for the thread producing ahead.
        if ahead != nil { produced.wait(on: done, until: { $0 != nil }, then: { _ in }) }
    }

    /// Result `index`; call with 0, 1, 2, ... in order.
    func take(_ index: Int) throws -> T {
        let result: Result<T, Error>
        if let ahead, ahead == index {
            self.ahead = nil
            let taken = produced.wait(on: done, until: { $0 != nil }, then: { $0.take() })
            result = taken ?? .failure(DecodeError("batch \(index) was not read"))
        } else {
            result = Result { try produce(index) }
        }
        between()
        if index + 1 < count, case .success = result { launch(index + 1) }
        return try result.get()
    }

    /// Starts producing result 0 on another thread, so that the caller can do other work
    /// before it takes it; call before the first `take`.
    func start() {
        if ahead == nil, count > 0 { launch(0) }
    }

    private func launch(_ index: Int) {
        ahead = index
        let produce = self.produce
        let produced = self.produced
        let done = self.done
        DispatchQueue.global().async {
            let r = Result { try produce(index) }
            produced.withLock { $0 = r }
            done.signal()
        }
    }
}

/// A value set once by one thread and waited for by others.
final class Gate<T: Sendable>: Sendable {
    private let value = Locked<T?>(nil)
    private let opened = Locked<T?>.Condition()

    /// Sets the value (once) and wakes every thread waiting for it.
    func open(_ v: T) {
        value.withLock { $0 = v }
        opened.broadcast()
    }

    /// The value, once `open` has set it.
    func wait() -> T {
        value.wait(on: opened, until: { $0 != nil }, then: { $0! })
    }
}
