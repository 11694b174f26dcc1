// A spindump of processes of several archs over the Samples' universal-dwarf5 build (HoldApp
// arm64; HoldKit a fat dSYM of an arm64 and an x86_64 slice, one UUID each): an arm64e process
// that loads HoldApp and HoldKit's arm64 slice, then an x86_64 (or x86_64h) process that loads
// HoldKit's x86_64 slice at the same address. Each process's frames are looked up in the slice
// its own Binary Images name by UUID, and llvm-symbolizer agrees on every one. A slice whose UUID
// is the image's is used whatever arch the report states: the UUID names one build of one arch.

import Foundation
import Reports
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

@Suite(.needsSamples)
struct SpindumpArchTests {
    static let holdAppArm64 = "4C4C446B-5555-3144-A104-33C7F3486CF8"
    static let holdKitArm64 = "4C4C4493-5555-3144-A120-37B933DF532E"
    static let holdKitX86 = "4C4C44D2-5555-3144-A101-88EAC6E87E56"

    static var paths: [String] { [Paths.samples + "/build/universal-dwarf5"] }

    /// Offsets from Samples/diagnostics: HoldApp-cpu-resource.txt for the arm64 slices,
    /// HoldApp-spindump.txt for the x86_64 one.
    static func spindump(secondArch: String) -> String {
        """
        Process:          HoldApp [4127]
        UUID:             \(holdAppArm64)
        Path:             /private/var/containers/Bundle/Application/5E1B1C8A-3F0D-4C52-9A8E-2D7B61C0A4F3/HoldApp.app/HoldApp
        Architecture:     arm64e
        Num samples:      1000 (1-1000)

          Thread 0x4d8a1    DispatchQueue "com.apple.main-thread"(1)    1000 samples (1-1000)    priority 46 (base 46)
          1000  ??? (HoldApp + 17504) [0x102bc8460]
            1000  ??? (HoldKit + 16808) [0x1030a41a8]
              1000  ??? (HoldKit + 16556) [0x1030a40ac]

          Binary Images:
                   0x102bc4000 -        0x102bcbfff  HoldApp (12)        <\(holdAppArm64)>  /private/var/containers/Bundle/Application/5E1B1C8A-3F0D-4C52-9A8E-2D7B61C0A4F3/HoldApp.app/HoldApp
                   0x1030a0000 -        0x1030a7fff  HoldKit (12)        <\(holdKitArm64)>  /private/var/containers/Bundle/Application/5E1B1C8A-3F0D-4C52-9A8E-2D7B61C0A4F3/HoldApp.app/Frameworks/HoldKit.framework/HoldKit


        Process:          HoldKitTool [4133]
        UUID:             0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0
        Path:             /usr/local/bin/HoldKitTool
        Architecture:     \(secondArch)
        Num samples:      1000 (1-1000)

          Thread 0x4d9c0    1000 samples (1-1000)    priority 31 (base 31)
          1000  ??? (HoldKit + 2555) [0x1030a09fb]
            1000  ??? (HoldKit + 2654) [0x1030a0a5e]
              1000  ??? (HoldKit + 2478) [0x1030a09ae]
                1000  ??? (HoldKit + 2171) [0x1030a087b]

          Binary Images:
                   0x1030a0000 -        0x1030a0fff  HoldKit (12)        <\(holdKitX86)>  /usr/local/lib/HoldKit.framework/HoldKit

        """
    }

    @Test(.needsReferee, arguments: ["x86_64", "x86_64h"])
    func eachProcessIsSymbolicatedWithItsOwnSlice(_ secondArch: String) throws {
        let locator = try SymbolPathLocator(paths: Self.paths)
        let bytes = Array(Self.spindump(secondArch: secondArch).utf8)
        let processed = try SymbolicationService(locator: locator).process(bytes, format: nil)
        let report = processed.report
        #expect(report.format == .microstackshot)
        #expect(report.backtraces.count == 2)
        let uuids = report.backtraces.map { backtrace in
            backtrace.frames.map { report.image(for: $0)?.uuid?.uuidString ?? "none" }
        }
        #expect(uuids[0] == [Self.holdAppArm64, Self.holdKitArm64, Self.holdKitArm64])
        #expect(uuids[1] == Array(repeating: Self.holdKitX86, count: 4))
        #expect(report.images.map { $0.arch?.rawValue ?? "none" } == ["arm64e", "arm64e", secondArch])
        let checked = try SymbolicationCheck.compare(processed, locator: locator)
        #expect(checked == 7)
        #expect(processed.outcome.symbolicatedFrames == 7, "\(processed.outcome.images.map(\.status))")
        let text = String(decoding: processed.output, as: UTF8.self)
        let lines = text.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("  1000  main + ") && $0.hasSuffix(" (HoldApp + 17504) [0x102bc8460]") })
        #expect(
            lines.contains {
                $0.hasPrefix("  1000  hk_codec_run + ") && $0.hasSuffix(" (HoldKit + 2555) [0x1030a09fb]")
            })
    }

    @Test func aSliceOfTheImagesUUIDIsUsedWhateverArchTheReportStates() throws {
        let locator = try SymbolPathLocator(paths: Self.paths)
        let uuid = try #require(BuildID(string: Self.holdKitX86))
        for arch in [Arch.arm64e, .arm64, .x86_64h, .i386] {
            guard case .found(let source) = locator.resolve(uuid: uuid, arch: arch, name: "HoldKit") else {
                Issue.record("\(arch): no slice for \(uuid)")
                continue
            }
            #expect(source.build.uuid == uuid && source.build.arch == .x86_64 && source.build.kind == .debugInfo)
        }
        // The fat file's other slice, asked for by its own UUID under x86_64.
        let arm64UUID = try #require(BuildID(string: Self.holdKitArm64))
        guard case .found(let arm64) = locator.resolve(uuid: arm64UUID, arch: .x86_64, name: "HoldKit") else {
            Issue.record("no arm64 slice")
            return
        }
        #expect(arm64.build.arch == .arm64)
    }
}
