// Which image a spindump's sample line belongs to. Spindump names an image in its Binary Images
// by bundle id and version (`com.apple.CoreFoundation 6.9 (1863) <UUID> /path/CoreFoundation`)
// while its sample lines say `(CoreFoundation + offset)`; it marks the kernel's image line with
// `*`, and prints `???` for an end address it does not know. Each of these images, with its UUID,
// must be the one its frames point to, not an image made up from the sample line without one.

import Reports
import SymbolicateModel
import Testing

struct SpindumpImagesTests {
    static let text = """
        Process:          Helper [114]
        UUID:             D40A55DE-695F-336F-AAB0-10A94FED349F
        Path:             /usr/libexec/Helper
        Architecture:     x86_64
        Num samples:      10 (1-10)

          Thread 0x3461855    10 samples (1-10)    priority 4 (base 4)
          10  ??? (Helper + 1000) [0x105d2e3e8]
            10  CFRunLoopRun + 40 (CoreFoundation + 1072619) [0x7ff811fc1deb]
              10  mach_msg_trap + 10 (libsystem_kernel.dylib + 6522) [0x7ff811e3897a]
               *10  ipc_mqueue_receive_continue + 0 (kernel + 335600) [0xffffff8000261ef0]

          Binary Images:
                   0x105d2e000 -                ???  Helper                               <D40A55DE-695F-336F-AAB0-10A94FED349F>  /usr/libexec/Helper
                0x7ff811e37000 -     0x7ff811e6efff  libsystem_kernel.dylib (8020.121.3) <61711D11-E776-3BC3-B9A2-6F9F37CB8499>  /usr/lib/system/libsystem_kernel.dylib
                0x7ff811ebc000 -     0x7ff8123befff  com.apple.CoreFoundation 6.9 (1863) <F8E45EF9-9FD2-3331-BB1B-703D5DACDAF1>  /System/Library/Frameworks/CoreFoundation.framework/Versions/A/CoreFoundation
           *0xffffff8000210000 - 0xffffff8000c0ffff  kernel (8020.121.3)                 <3C587984-4004-3C76-8ADF-997822977184>  /System/Library/Kernels/kernel

        """

    @Test func everyFrameIsInItsListedImage() throws {
        let report = try ReportParser.parse(Array(Self.text.utf8))
        #expect(report.format == .microstackshot)
        #expect(report.images.count == 4, "\(report.images.map(\.name))")
        let expected = [
            "D40A55DE-695F-336F-AAB0-10A94FED349F", "F8E45EF9-9FD2-3331-BB1B-703D5DACDAF1",
            "61711D11-E776-3BC3-B9A2-6F9F37CB8499", "3C587984-4004-3C76-8ADF-997822977184",
        ]
        let frames = report.backtraces.flatMap(\.frames)
        #expect(frames.count == expected.count)
        for (frame, uuid) in zip(frames, expected) {
            let image = try #require(frame.imageIndex.map { report.images[$0] }, "\(frame)")
            #expect(image.uuid?.uuidString == uuid, "\(frame.imageName ?? "") -> \(image.name)")
        }
    }

    @Test func starredAndOpenEndedImageLinesAreRead() throws {
        let report = try ReportParser.parse(Array(Self.text.utf8))
        let kernel = try #require(report.images.first { $0.name == "kernel" })
        #expect(kernel.loadAddress == 0xFFFF_FF80_0021_0000 && kernel.size == 0xA0_0000)
        let helper = try #require(report.images.first { $0.name == "Helper" })
        #expect(helper.loadAddress == 0x1_05D2_E000 && helper.size == nil)
        #expect(helper.uuid?.uuidString == "D40A55DE-695F-336F-AAB0-10A94FED349F")
    }
}
