// SymbolPathLocator: the symbol paths a user gave (dSYM bundles, .app bundles, .xcarchives,
// folders, single Mach-O / ELF files), scanned once, reading only headers, and indexed by UUID.
// A slice's symbol table is read on first use and kept, with the error when it cannot be read,
// so a corrupt file is opened once per run, not once per frame. A slice whose UUID is the image's
// is used whatever arch the report states (a UUID names one build of one arch, and reports label
// archs loosely: spindump says x86_64h for an x86_64 build); the arch only orders the slices of
// one UUID.

import ObjectFiles
import Store
import SymbolicateModel

public final class SymbolPathLocator: SymbolLocator {
    private let slices: [BuildID: [ObjectSlice]]
    private let slicesByName: [String: [BuildInfo]]
    private let loaded = Locked<[SliceKey: LoadResult]>([:])
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
    public init(paths: [String]) throws {
        guard !paths.isEmpty else {
            // The common case of a report answered from the store: no dictionaries to build.
            (self.slices, self.slicesByName, self.scanProblems) = ([:], [:], [])
            return
        }
        var slices: [BuildID: [ObjectSlice]] = [:]
        var byName: [String: [BuildInfo]] = [:]
        var problems: [SymbolicateError] = []
        for path in paths {
            var unusable: [String] = []
            let files = try SymbolFileFinder.objectFiles(in: path, unusableDWARF: &unusable)
            for file in unusable {
                problems.append(SymbolicateError(.badInput, SymbolFileFinder.whyNotAnObjectFile(file), path: file))
            }
            for file in files {
                do {
                    for slice in try ObjectFile.slices(atPath: file) {
                        slices[slice.info.uuid, default: []].append(slice)
                        byName[slice.info.name.lowercased(), default: []].append(slice.info)
                    }
                } catch let error as SymbolicateError {
                    problems.append(error)
                } catch {
                    problems.append(SymbolicateError(.badInput, "\(error)", path: file, cause: error))
                }
            }
        }
        self.slices = slices
        self.slicesByName = byName
        self.scanProblems = problems
    }

    /// Every build the symbol paths hold, for listings and tests.
    public var buildsInPaths: [BuildInfo] {
        slices.values.flatMap { $0.map(\.info) }.sorted { ($0.name, $0.uuid) < ($1.name, $1.uuid) }
    }

    /// Slices of the symbol paths for `uuid`, of every arch: those of `arch` or a compatible one
    /// first, then debug information first.
    private func candidates(uuid: BuildID, arch: Arch?) -> [ObjectSlice] {
        (slices[uuid] ?? []).sorted { a, b in
            let aFits = arch.map { a.info.arch.isCompatible(with: $0) } ?? true
            let bFits = arch.map { b.info.arch.isCompatible(with: $0) } ?? true
            if aFits != bFits { return aFits }
            return a.info.kind > b.info.kind
        }
    }

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

    public func resolve(uuid: BuildID, arch: Arch?, name: String) -> SymbolResolution {
        let candidates = self.candidates(uuid: uuid, arch: arch)
        var firstError: SymbolicateError? = nil
        for slice in candidates {
            switch load(slice) {
            case .table(let table): return .found(table)
            case .error(let error): firstError = firstError ?? error
            }
        }
        if let firstError { return .failed(firstError) }
        let sameName = slicesByName[name.lowercased()]?.filter { $0.uuid != uuid } ?? []
        return .notFound(mismatch: SymbolResolution.closest(sameName, arch: arch))
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
            result = .error(SymbolicateError(.badInput, "\(error)", path: slice.info.path, cause: error))
        }
        loaded.withLock { $0[key] = result }
        return result
    }
}
