// What the symbolicator says of an image: its symbols are looked for once, at its first frame,
// however many frames it has, and an image whose symbols fail to read at one frame stays
// `failed` with that first failure, whatever the frames after it find.

import SymbolicateModel
import Synchronization
import Testing

@testable import Symbolication

struct ImageOutcomeTests {
    static let uuid = BuildID(bytes: [UInt8](repeating: 7, count: 16))
    static let image = BinaryImage(loadAddress: 0x1_0000_0000, size: 0x10000, name: "App", arch: .arm64, uuid: uuid)

    /// Names every address but those in 0x1000..<0x2000 of the image, which it cannot read.
    final class PartlyDamaged: SymbolSource {
        let build = BuildInfo(
            uuid: ImageOutcomeTests.uuid, arch: .arm64, name: "App", textVMAddress: 0, textSize: 0x10000,
            kind: .debugInfo, path: "/App.dSYM")
        func lookup(_ address: UInt64) throws -> [SymbolTable.Resolved]? {
            if (0x1000..<0x2000).contains(address) {
                throw SymbolicateError(.badInput, "damaged line table", path: "/App.dSYM")
            }
            return [SymbolTable.Resolved(function: "f\(address)", entry: address, file: "a.c", line: 1)]
        }
    }

    final class Counting: SymbolLocator {
        let asked = Mutex(0)
        func resolve(uuid: BuildID, arch: Arch?, name: String) -> SymbolResolution {
            asked.withLock { $0 += 1 }
            return .found(PartlyDamaged())
        }
    }

    @Test func aFailedFrameLeavesItsImageFailed() {
        let addresses: [UInt64] = [0x1_0000_0500, 0x1_0000_1500, 0x1_0000_3000, 0x1_0000_4000]
        let frames = addresses.enumerated().map { Frame(number: $0, address: $1, isReturnAddress: $0 > 0) }
        let report = CrashReport(
            format: .text, original: [], backtraces: [Backtrace(kind: .thread, number: 0, frames: frames)],
            images: [Self.image], arch: .arm64)
        let locator = Counting()
        let outcome = Symbolicator(locator: locator).symbolicate(report)

        #expect(locator.asked.withLock { $0 } == 1)
        let statuses = (0..<4).map { outcome.results[FrameID(backtrace: 0, frame: $0)]?.status }
        #expect(statuses == [.symbolicated, .failed, .symbolicated, .symbolicated])
        let app = outcome.images.first
        #expect(app?.framesTotal == 4)
        #expect(app?.framesSymbolicated == 3)
        #expect(app?.failure?.message.contains("damaged line table") == true)
        guard case .failed(let message) = app?.status else {
            Issue.record("status \(String(describing: app?.status)) after a frame failed")
            return
        }
        #expect(message.contains("damaged line table"))
        #expect(outcome.failedFrames == 1)
    }
}
