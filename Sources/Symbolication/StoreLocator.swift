// StoreLocator: the symbol store's index as a locator. What the store answered is kept per
// image: found builds for `foundRetention` (forever unless told: a CLI run is short), after which
// the catalog is asked again, so a build removed meanwhile (by another replica, or `symbolicate
// remove` beside a server) stops answering; misses only for `missRetention`, so a build imported
// meanwhile (by this process or another) is seen by the next report; failures (the bucket did not
// answer) not at all, so they are never taken for a miss. Asking again is cheap: the store serves
// a build it still lists from the file it keeps open.

import Dispatch
import Store
import SymbolicateModel

public final class StoreLocator: SymbolLocator {
    public let store: any SymbolStoring
    private let answers = Locked<[Key: Answer]>([:])
    static let missRetention: UInt64 = 1_000_000_000
    static let maxAnswers = 10_000
    /// Nanoseconds a found build is used before the catalog is asked again; nil for ever.
    let foundRetention: UInt64?

    private struct Key: Hashable, Sendable {
        var uuid: BuildID
        var arch: Arch?
        var name: String
    }

    private struct Answer: Sendable {
        var resolution: SymbolResolution
        /// Uptime in nanoseconds after which the answer is asked again; nil for found builds.
        var expires: UInt64?
    }

    /// `foundRetention`: seconds a found build answers before the catalog is asked again (a
    /// server's watch interval); nil keeps it for the locator's life.
    public init(store: any SymbolStoring, foundRetention: Double? = nil) {
        self.store = store
        self.foundRetention = foundRetention.map { UInt64(max(0, min($0, 86_400)) * 1e9) }
    }

    public func resolve(uuid: BuildID, arch: Arch?, name: String) -> SymbolResolution {
        let key = Key(uuid: uuid, arch: arch, name: name)
        let now = DispatchTime.now().uptimeNanoseconds
        if let cached = answers.withLock({ $0[key] }), cached.expires.map({ now < $0 }) ?? true {
            return cached.resolution
        }
        let resolution: SymbolResolution
        do {
            if let source = try store.source(for: uuid, arch: arch) {
                resolution = .found(source)
            } else {
                resolution = .notFound(mismatch: mismatch(uuid: uuid, arch: arch, name: name))
            }
        } catch let error as SymbolicateError {
            resolution = .failed(error)
        } catch {
            resolution = .failed(SymbolicateError(.internal, "\(error)", cause: error))
        }
        var expires: UInt64? = now + StoreLocator.missRetention
        switch resolution {
        case .found: expires = foundRetention.map { now + $0 }
        case .notFound: break
        // A store that failed to answer is asked again by the next report: a failure is never kept.
        case .failed: return resolution
        }
        answers.withLock { answers in
            if answers.count >= StoreLocator.maxAnswers { answers.removeAll(keepingCapacity: true) }
            answers[key] = Answer(resolution: resolution, expires: expires)
        }
        return resolution
    }

    /// A stored build of the same image name with another UUID, to name in a mismatch, or nil.
    private func mismatch(uuid: BuildID, arch: Arch?, name: String) -> BuildInfo? {
        guard let stored = try? store.builds(named: name, otherThan: uuid) else { return nil }
        return SymbolResolution.closest(stored.map(\.build), arch: arch)
    }
}
