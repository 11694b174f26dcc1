// SymbolLocator: image -> symbol source. It scans the symbol paths a user gave (dSYM bundles,
// .app bundles, .xcarchives, folders, single Mach-O / ELF files) once, reading only headers, and
// indexes their slices by UUID; symbol tables are read on first use and kept. When the paths
// have nothing for a UUID, the store is asked. Only an exact UUID (and a compatible arch)
// matches; an image of the same name with another UUID is reported as a mismatch, never used.

import ObjectFiles
import Store
import Synchronization
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
    private let store: SymbolStore?
    private let loaded = Mutex<[SliceKey: LoadResult]>([:])
    /// Files under the symbol paths that could not be opened, for the verbose summary.
    public let scanProblems: [SymbolicateError]

    private struct SliceKey: Hashable, Sendable {
        var uuid: BuildID
        var arch: Arch
        var path: String
    }

    private enum LoadResult: Sendable {
        case table(SymbolTable)
        case error(SymbolicateError)
    }

    /// Scans `paths` (headers only). Throws `.notFound` for a path that does not exist.
    public init(paths: [String], store: SymbolStore?) throws {
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
        let candidates = (slices[uuid] ?? [])
            .filter { arch == nil || $0.info.arch.isCompatible(with: arch ?? $0.info.arch) }
            .sorted { $0.info.kind > $1.info.kind }
        var firstError: SymbolicateError? = nil
        for slice in candidates {
            switch load(slice) {
            case .table(let table): return .found(table)
            case .error(let error): firstError = firstError ?? error
            }
        }
        if let store {
            do {
                if let source = try store.source(for: uuid, arch: arch) { return .found(source) }
            } catch let error as SymbolicateError {
                firstError = firstError ?? error
            } catch {
                firstError = firstError ?? SymbolicateError(.internal, "\(error)")
            }
        }
        if let firstError { return .failed(firstError) }
        var sameName = slicesByName[name.lowercased()]?.filter { $0.uuid != uuid } ?? []
        if sameName.isEmpty, let store, let stored = try? store.builds(named: name, otherThan: uuid) {
            sameName = stored.map {
                BuildInfo(
                    uuid: $0.uuid, arch: $0.arch, name: $0.name, textVMAddress: $0.textVMAddress,
                    textSize: $0.textSize, kind: $0.kind, path: $0.sourcePath)
            }
        }
        return .notFound(mismatch: SymbolLocator.closest(sameName, arch: arch))
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
