// StoreLocator: the symbol store's index as a locator. What the store answered is kept per
// image: found builds for good (build files are immutable), misses only for `missRetention`, so
// a build imported meanwhile (by this process or another) is seen by the next report; failures
// (the bucket did not answer) not at all, so they are never taken for a miss.

import Dispatch
import Store
import SymbolicateModel

public final class StoreLocator: SymbolLocator {
    public let store: any SymbolStoring
    private let answers = Locked<[Key: Answer]>([:])
    static let missRetention: UInt64 = 1_000_000_000
    static let maxAnswers = 10_000

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

    public init(store: any SymbolStoring) {
        self.store = store
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
        case .found: expires = nil
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
        let builds = stored.map {
            BuildInfo(
                uuid: $0.uuid, arch: $0.arch, name: $0.name, textVMAddress: $0.textVMAddress,
                textSize: $0.textSize, kind: $0.kind, path: $0.sourcePath)
        }
        return SymbolResolution.closest(builds, arch: arch)
    }
}
