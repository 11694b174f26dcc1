// SymbolLocatorChain: the order the command line relies on (symbol paths first, then the store)
// kept by a chain of locators. Stand-in locators answer fixed resolutions and count the
// questions, so each rule of the chain is seen on its own; SymbolicateError keeps its cause.

import SymbolicateModel
import Synchronization
import Testing

@testable import Symbolication

@Suite struct SymbolLocatorChainTests {
    static let uuid = BuildID(bytes: [UInt8](repeating: 0xAB, count: 16))

    static func build(_ byte: UInt8, path: String) -> BuildInfo {
        BuildInfo(
            uuid: BuildID(bytes: [UInt8](repeating: byte, count: 16)), arch: .arm64, name: "App",
            textVMAddress: 0x1_0000_0000, textSize: 0x4000, kind: .debugInfo, path: path)
    }

    struct Source: SymbolSource {
        var build: BuildInfo
        func lookup(_ address: UInt64) -> [SymbolTable.Resolved]? { nil }
    }

    /// Answers one resolution and counts how often it was asked.
    final class Fixed: SymbolLocator {
        let answer: SymbolResolution
        let asked = Mutex(0)
        init(_ answer: SymbolResolution) { self.answer = answer }
        func resolve(uuid: BuildID, arch: Arch?, name: String) -> SymbolResolution {
            asked.withLock { $0 += 1 }
            return answer
        }
    }

    static func resolve(_ locators: [any SymbolLocator]) -> SymbolResolution {
        SymbolLocatorChain(locators).resolve(uuid: uuid, arch: .arm64, name: "App")
    }

    @Test func theFirstLocatorThatFindsAnswersAndTheRestAreNotAsked() {
        let paths = Fixed(.found(Source(build: Self.build(1, path: "/paths/App"))))
        let store = Fixed(.found(Source(build: Self.build(2, path: "/store/App"))))
        guard case .found(let source) = Self.resolve([paths, store]) else {
            Issue.record("expected the paths' build")
            return
        }
        #expect(source.build.path == "/paths/App")
        #expect(store.asked.withLock { $0 } == 0)
    }

    @Test func aLaterLocatorFindsWhatAnEarlierOneMisses() {
        let paths = Fixed(.notFound(mismatch: Self.build(1, path: "/paths/Other")))
        let store = Fixed(.found(Source(build: Self.build(2, path: "/store/App"))))
        guard case .found(let source) = Self.resolve([paths, store]) else {
            Issue.record("expected the store's build")
            return
        }
        #expect(source.build.path == "/store/App")
    }

    @Test func aFailureOutranksAMissAndTheFirstFailureIsKept() {
        let unreadable = Fixed(.failed(SymbolicateError(.badInput, "corrupt", path: "/paths/App")))
        let storeFails = Fixed(.failed(SymbolicateError(.io, "disk", path: "/store")))
        let miss = Fixed(.notFound(mismatch: nil))
        guard case .failed(let error) = Self.resolve([unreadable, miss]) else {
            Issue.record("expected the paths' failure")
            return
        }
        #expect(error.path == "/paths/App")
        guard case .failed(let second) = Self.resolve([miss, storeFails, unreadable]) else {
            Issue.record("expected the store's failure")
            return
        }
        #expect(second.code == .io)
    }

    @Test func theFirstMismatchNamedIsKept() {
        let none = Fixed(.notFound(mismatch: nil))
        let paths = Fixed(.notFound(mismatch: Self.build(3, path: "/paths/App")))
        let store = Fixed(.notFound(mismatch: Self.build(4, path: "/store/App")))
        guard case .notFound(let mismatch) = Self.resolve([none, paths, store]) else {
            Issue.record("expected a miss")
            return
        }
        #expect(mismatch?.path == "/paths/App")
        guard case .notFound(nil) = Self.resolve([]) else {
            Issue.record("an empty chain finds nothing")
            return
        }
    }

    @Test func anErrorKeepsItsCauseAndWhereItWasMade() {
        struct Underlying: Error, CustomStringConvertible {
            var description: String { "libdwarf said no" }
        }
        let error = SymbolicateError(.badInput, "cannot read DWARF", path: "/x.dSYM", cause: Underlying())
        #expect(error.description == "/x.dSYM: cannot read DWARF")
        #expect(error.cause is Underlying)
        #expect(error.location.file.hasSuffix("SymbolLocatorChainTests.swift"))
        #expect(error.debugDescription.contains("libdwarf said no"))
        #expect(SymbolicateError(.io, "plain").cause == nil)
    }
}
