// DebuginfodLocator: the store, and for a build it lacks, the debuginfod servers configured
// (DebuginfodFetcher): a miss in the store is fetched by build id, imported, and answered from
// the store. A server that has nothing, fails or sends a wrong file leaves the image missing, as
// without servers (the fetcher's notes say why); it never fails the report.

import Import
import Store
import SymbolicateModel

public final class DebuginfodLocator: SymbolLocator {
    public let fetcher: DebuginfodFetcher
    private let store: any SymbolStoring
    private let local: StoreLocator

    /// `foundRetention`: as `StoreLocator`'s (a server's watch interval; nil for a CLI run).
    public init(store: any SymbolStoring, fetcher: DebuginfodFetcher, foundRetention: Double? = nil) {
        self.store = store
        self.fetcher = fetcher
        local = StoreLocator(store: store, foundRetention: foundRetention)
    }

    public func resolve(uuid: BuildID, arch: Arch?, name: String) -> SymbolResolution {
        let answer = local.resolve(uuid: uuid, arch: arch, name: name)
        guard case .notFound = answer, fetcher.fetch(uuid) else { return answer }
        do {
            return try store.source(for: uuid, arch: arch).map { .found($0) } ?? answer
        } catch let error as SymbolicateError {
            return .failed(error)
        } catch {
            return .failed(SymbolicateError(.internal, "\(error)", cause: error))
        }
    }
}

extension SymbolLocatorChain {
    /// The command line's order with debuginfod: the symbol paths, then the store, then the
    /// servers for what the store lacks.
    public init(paths: SymbolPathLocator, store: (any SymbolStoring)?, debuginfod: DebuginfodFetcher?) {
        guard let store, let debuginfod else {
            self.init(paths: paths, store: store)
            return
        }
        self.init([paths, DebuginfodLocator(store: store, fetcher: debuginfod)])
    }
}
