// ImageMap: the one frame-to-image rule. The parser's index first, then the image whose range
// holds the address; overlapping images (broken reports) give the one loaded highest, then the
// one listed first, whichever part of the program asks (the parser, CrashReport.image(for:),
// the symbolicator, the Sentry endpoint).

import SymbolicateModel
import Testing

@testable import Reports

@Suite struct ImageMapTests {
    /// `Outer` spans 0x1000..<0x2000; `Inner` sits inside it at 0x1800..<0x1900, listed after it.
    static let overlapping = [
        BinaryImage(loadAddress: 0x1000, size: 0x1000, name: "Outer"),
        BinaryImage(loadAddress: 0x1800, size: 0x100, name: "Inner"),
        BinaryImage(loadAddress: 0x4000, name: "Unsized"),
    ]

    @Test func overlappingImagesGiveTheOneLoadedHighestEverywhere() {
        let frame = Frame(number: 1, address: 0x1850, isReturnAddress: false)
        let report = CrashReport(format: .ips, original: [], images: Self.overlapping)
        #expect(report.image(for: frame)?.name == "Inner")
        #expect(ImageMap(Self.overlapping).index(containing: 0x1850) == 1)
        #expect(ImageResolver(Self.overlapping).index(named: nil, address: 0x1850) == 1)
        #expect(report.image(for: Frame(number: 1, address: 0x1900, isReturnAddress: false))?.name == "Outer")
        #expect(report.image(for: Frame(number: 1, address: 0x2000, isReturnAddress: false)) == nil)
    }

    @Test func theParsersIndexComesFirstWhenItIsValid() {
        let report = CrashReport(format: .ips, original: [], images: Self.overlapping)
        #expect(
            report.image(for: Frame(number: 0, imageIndex: 0, address: 0x1850, isReturnAddress: false))?.name == "Outer"
        )
        #expect(
            report.image(for: Frame(number: 0, imageIndex: 9, address: 0x1850, isReturnAddress: false))?.name == "Inner"
        )
        let map = ImageMap(Self.overlapping)
        #expect(map.index(of: Frame(number: 0, imageIndex: 2, address: 0, isReturnAddress: false), address: 0) == 2)
    }

    @Test func anImageWithoutASizeHoldsNothingUnlessAskedToReachTheNext() {
        #expect(ImageMap(Self.overlapping).index(containing: 0x4010) == nil)
        let sentry = ImageMap(Self.overlapping, unsizedImages: .reachNextImage)
        #expect(sentry.index(containing: 0x4010) == 2)
        #expect(sentry.index(containing: 0xFFFF_0000) == 2)
        #expect(sentry.index(containing: 0x1850) == 1)
        #expect(sentry.index(containing: 0x0FFF) == nil)
    }

    @Test func imagesAtTheSameAddressGiveTheOneListedFirst() {
        let twins = [
            BinaryImage(loadAddress: 0x1000, size: 0x100, name: "First"),
            BinaryImage(loadAddress: 0x1000, size: 0x100, name: "Second"),
        ]
        #expect(ImageMap(twins).index(containing: 0x1010) == 0)
        #expect(ImageMap(twins, unsizedImages: .reachNextImage).index(containing: 0x1010) == 0)
    }
}
