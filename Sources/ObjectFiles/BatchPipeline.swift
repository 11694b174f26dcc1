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
        if index + 1 < count, case .success = result {
            ahead = index + 1
            let produce = self.produce
            let produced = self.produced
            let done = self.done
            DispatchQueue.global().async {
                let r = Result { try produce(index + 1) }
                produced.withLock { $0 = r }
                done.signal()
            }
        }
        return try result.get()
    }
}
