// SymbolLocator: image -> symbol source. It scans the symbol paths a user gave (dSYM bundles,
// .app bundles, .xcarchives, folders, single Mach-O / ELF files) once, reading only headers, and
// indexes their slices by UUID; symbol tables are read on first use and kept. When the paths
// have nothing for a UUID, the store is asked. Only an exact UUID (and a compatible arch)
// matches; an image of the same name with another UUID is reported as a mismatch, never used.

import Dispatch
import ObjectFiles
import Store
import SymbolicateModel

public final class SymbolLocator: Sendable {
    /// What the locator knows about one image.
    public enum Resolution: Sendable {
        case found(any SymbolSource)
        /// Nothing with this UUID; `mismatch` is a symbol file for an image of the same name.
        case notFound(mismatch: BuildInfo?)
        case failed(SymbolicateError)
    }

    private let slices: [BuildID: [ObjectSlice]]
    private let slicesByName: [String: [BuildInfo]]
    private let store: (any SymbolStoring)?
    private let loaded = Locked<[SliceKey: LoadResult]>([:])
    /// What the store answered, per image: found builds are kept (build files are immutable);
    /// misses are asked again after `missRetention`, so a build imported meanwhile is seen.
    private let storeAnswers = Locked<[StoreKey: StoreAnswer]>([:])
    static let missRetention: UInt64 = 1_000_000_000
    static let maxStoreAnswers = 10_000
    /// Files under the symbol paths that could not be opened, for the verbose summary.
    public let scanProblems: [SymbolicateError]

    private struct SliceKey: Hashable, Sendable {
        var uuid: BuildID
        var arch: Arch
        var path: String
    }

    private struct StoreKey: Hashable, Sendable {
        var uuid: BuildID
        var arch: Arch?
        var name: String
    }

    private struct StoreAnswer: Sendable {
        var resolution: Resolution
        /// Uptime in nanoseconds after which the answer is asked again; nil for found builds.
        var expires: UInt64?
    }

    private enum LoadResult: Sendable {
        case table(SymbolTable)
        case error(SymbolicateError)
    }

    /// Scans `paths` (headers only). Throws `.notFound` for a path that does not exist.
    public init(paths: [String], store: (any SymbolStoring)?) throws {
        var slices: [BuildID: [ObjectSlice]] = [:]
        var byName: [String: [BuildInfo]] = [:]
        var problems: [SymbolicateError] = []
        for path in paths {
            for file in try SymbolFileFinder.objectFiles(in: path) {
                do {
                    for slice in try ObjectFile.slices(atPath: file) {
                        slices[slice.info.uuid, default: []].append(slice)
                        byName[slice.info.name.lowercased(), default: []].append(slice.info)
                    }
                } catch let error as SymbolicateError {
                    problems.append(error)
                } catch {
                    problems.append(SymbolicateError(.badInput, "\(error)", path: file))
                }
            }
        }
        self.slices = slices
        self.slicesByName = byName
        self.store = store
        self.scanProblems = problems
    }

    /// Every build the symbol paths hold (not the store), for listings and tests.
    public var buildsInPaths: [BuildInfo] {
        slices.values.flatMap { $0.map(\.info) }.sorted { ($0.name, $0.uuid) < ($1.name, $1.uuid) }
    }

    /// The symbols for an image with `uuid` (and `arch` when the report states it), named `name`.
    public func resolve(uuid: BuildID, arch: Arch?, name: String) -> Resolution {
        let candidates = self.candidates(uuid: uuid, arch: arch)
        var firstError: SymbolicateError? = nil
        for slice in candidates {
            switch load(slice) {
            case .table(let table): return .found(table)
            case .error(let error): firstError = firstError ?? error
            }
        }
        if let store {
            let answer = storeResolution(uuid: uuid, arch: arch, name: name, store: store)
            if case .found = answer { return answer }
            if let firstError { return .failed(firstError) }
            return answer
        }
        if let firstError { return .failed(firstError) }
        return .notFound(mismatch: mismatch(uuid: uuid, arch: arch, name: name, store: nil))
    }

    /// Slices of the symbol paths for `uuid`, debug information first.
    private func candidates(uuid: BuildID, arch: Arch?) -> [ObjectSlice] {
        (slices[uuid] ?? [])
            .filter { arch == nil || $0.info.arch.isCompatible(with: arch ?? $0.info.arch) }
            .sorted { $0.info.kind > $1.info.kind }
    }

    /// Why the slices for `uuid` that `resolve` tried and could not read failed (a damaged dSYM
    /// passed over for the binary's symbol table), so the outcome can say so.
    public func unreadable(uuid: BuildID, arch: Arch?) -> [SymbolicateError] {
        let tried = candidates(uuid: uuid, arch: arch).map {
            SliceKey(uuid: $0.info.uuid, arch: $0.info.arch, path: $0.info.path)
        }
        return loaded.withLock { loaded in
            tried.compactMap { key in
                if case .error(let error) = loaded[key] { return error }
                return nil
            }
        }
    }

    /// The store's answer for an image the symbol paths do not have, from the cache when fresh.
    private func storeResolution(uuid: BuildID, arch: Arch?, name: String, store: any SymbolStoring) -> Resolution {
        let key = StoreKey(uuid: uuid, arch: arch, name: name)
        let now = DispatchTime.now().uptimeNanoseconds
        if let cached = storeAnswers.withLock({ $0[key] }), cached.expires.map({ now < $0 }) ?? true {
            return cached.resolution
        }
        let resolution: Resolution
        do {
            if let source = try store.source(for: uuid, arch: arch) {
                resolution = .found(source)
            } else {
                resolution = .notFound(mismatch: mismatch(uuid: uuid, arch: arch, name: name, store: store))
            }
        } catch let error as SymbolicateError {
            resolution = .failed(error)
        } catch {
            resolution = .failed(SymbolicateError(.internal, "\(error)"))
        }
        var expires: UInt64? = now + SymbolLocator.missRetention
        if case .found = resolution { expires = nil }
        storeAnswers.withLock { answers in
            if answers.count >= SymbolLocator.maxStoreAnswers { answers.removeAll(keepingCapacity: true) }
            answers[key] = StoreAnswer(resolution: resolution, expires: expires)
        }
        return resolution
    }

    /// A build of the same image name with another UUID, to name in a mismatch, or nil.
    private func mismatch(uuid: BuildID, arch: Arch?, name: String, store: (any SymbolStoring)?) -> BuildInfo? {
        var sameName = slicesByName[name.lowercased()]?.filter { $0.uuid != uuid } ?? []
        if sameName.isEmpty, let store, let stored = try? store.builds(named: name, otherThan: uuid) {
            sameName = stored.map {
                BuildInfo(
                    uuid: $0.uuid, arch: $0.arch, name: $0.name, textVMAddress: $0.textVMAddress,
                    textSize: $0.textSize, kind: $0.kind, path: $0.sourcePath)
            }
        }
        return SymbolLocator.closest(sameName, arch: arch)
    }

    /// The build to name in a UUID-mismatch message: one of a compatible arch first, then the
    /// lowest UUID, so symbol paths and the store name the same one.
    static func closest(_ builds: [BuildInfo], arch: Arch?) -> BuildInfo? {
        builds.min { a, b in
            let aFits = arch.map { a.arch.isCompatible(with: $0) } ?? true
            let bFits = arch.map { b.arch.isCompatible(with: $0) } ?? true
            if aFits != bFits { return aFits }
            return (a.uuid, a.arch) < (b.uuid, b.arch)
        }
    }

    private func load(_ slice: ObjectSlice) -> LoadResult {
        let key = SliceKey(uuid: slice.info.uuid, arch: slice.info.arch, path: slice.info.path)
        if let done = loaded.withLock({ $0[key] }) { return done }
        let result: LoadResult
        do {
            result = .table(try slice.loadSymbolTable())
        } catch let error as SymbolicateError {
            result = .error(error)
        } catch {
            result = .error(SymbolicateError(.badInput, "\(error)", path: slice.info.path))
        }
        loaded.withLock { $0[key] = result }
        return result
    }
}
