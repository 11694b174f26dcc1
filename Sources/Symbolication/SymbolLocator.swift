// SymbolLocator: the seam between an image named in a report and the symbols for it (image ->
// symbol source), after the Swift runtime's symbolication (RuntimeModule/SymbolLocator.swift).
// Three locators implement it: SymbolPathLocator (the symbol files and folders a user gave),
// StoreLocator (the symbol store's index) and SymbolLocatorChain, which asks a list of them in
// order. The CLI chains paths first, then the store; the server asks the store alone. Only an
// exact UUID matches, of whatever arch (a UUID names one build of one arch; the report's arch
// only says which slice of that UUID comes first); an image of the same name with another UUID
// is reported as a mismatch, never used.

import Store
import SymbolicateModel

/// What a locator knows about one image.
public enum SymbolResolution: Sendable {
    case found(any SymbolSource)
    /// Nothing with this UUID; `mismatch` is a symbol file for an image of the same name.
    case notFound(mismatch: BuildInfo?)
    case failed(SymbolicateError)
}

/// Finds the symbols for an image by its UUID.
public protocol SymbolLocator: Sendable {
    /// The symbols for an image with `uuid`, named `name`; of `arch` first when the report
    /// states it, else of the arch the UUID's slice has.
    func resolve(uuid: BuildID, arch: Arch?, name: String) -> SymbolResolution

    /// Why symbol files for `uuid` that `resolve` tried could not be read (a damaged dSYM passed
    /// over for the binary's symbol table), so the outcome can say so.
    func unreadable(uuid: BuildID, arch: Arch?) -> [SymbolicateError]
}

extension SymbolLocator {
    public func unreadable(uuid: BuildID, arch: Arch?) -> [SymbolicateError] { [] }
}

extension SymbolResolution {
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
}

/// Asks its locators in order. The first that finds the image answers; otherwise the first
/// failure (a symbol file that matched but could not be read) is the answer, and without one,
/// the first mismatch any locator names.
public struct SymbolLocatorChain: SymbolLocator {
    public let locators: [any SymbolLocator]

    public init(_ locators: [any SymbolLocator]) {
        self.locators = locators
    }

    /// The command line's order: the symbol paths given, then the store when there is one.
    public init(paths: SymbolPathLocator, store: (any SymbolStoring)?) {
        self.init(store.map { [paths, StoreLocator(store: $0)] } ?? [paths])
    }

    public func resolve(uuid: BuildID, arch: Arch?, name: String) -> SymbolResolution {
        var failure: SymbolicateError? = nil
        var mismatch: BuildInfo? = nil
        for locator in locators {
            switch locator.resolve(uuid: uuid, arch: arch, name: name) {
            case .found(let source): return .found(source)
            case .failed(let error): failure = failure ?? error
            case .notFound(let named): mismatch = mismatch ?? named
            }
        }
        if let failure { return .failed(failure) }
        return .notFound(mismatch: mismatch)
    }

    public func unreadable(uuid: BuildID, arch: Arch?) -> [SymbolicateError] {
        locators.flatMap { $0.unreadable(uuid: uuid, arch: arch) }
    }
}
