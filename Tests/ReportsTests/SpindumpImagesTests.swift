// Which image a spindump's sample line belongs to. Spindump names an image in its Binary Images
// by bundle id and version (`com.apple.CoreFoundation 6.9 (1863) <UUID> /path/CoreFoundation`)
// while its sample lines say `(CoreFoundation + offset)`; it marks the kernel's image line with
// `*`, and prints `???` for an end address it does not know. Each of these images, with its UUID,
// must be the one its frames point to, not an image made up from the sample line without one.
// Each process section states its own `Architecture:` (one spindump holds x86_64, x86_64h and
// arm64e processes): its images have that arch, and its frames point to its own images even
// where another process lists the same image at the same address.

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

    /// Two processes from ../shared/corpus/real/inket__MacSymbolicator/Resources/Other/raw-processes.txt,
    /// cut down: adid (x86_64) and distnoted (x86_64h) both list CoreFoundation and the kernel at
    /// one address.
    static let twoArchs = """
        Process:          adid [99159] [unique pid 696637]
        UUID:             EEE799AA-AEAB-3BF1-AC79-C58000DAAC3A
        Path:             /System/Library/PrivateFrameworks/CoreADI.framework/Versions/A/adid
        Architecture:     x86_64
        Num samples:      1000 (1-1000)

          Thread 0x3461855    1000 samples (1-1000)    priority 4 (base 4)
          1000  ??? (adid + 535708) [0x10da97c9c]
            1000  CFRunLoopRun + 40 (CoreFoundation + 1072619) [0x7ff811fc1deb]
             *1000  ipc_mqueue_receive_continue + 0 (kernel + 335600) [0xffffff8000261ef0]

          Binary Images:
                   0x10da15000 -        0x10dbe0fff  adid (6)                            <EEE799AA-AEAB-3BF1-AC79-C58000DAAC3A>  /System/Library/PrivateFrameworks/CoreADI.framework/Versions/A/adid
                0x7ff811ebc000 -     0x7ff8123befff  com.apple.CoreFoundation 6.9 (1863) <F8E45EF9-9FD2-3331-BB1B-703D5DACDAF1>  /System/Library/Frameworks/CoreFoundation.framework/Versions/A/CoreFoundation
           *0xffffff8000210000 - 0xffffff8000c0ffff  kernel (8020.121.3)                 <3C587984-4004-3C76-8ADF-997822977184>  /System/Library/Kernels/kernel


        Process:          distnoted [102]
        UUID:             3CA57E31-5F29-3847-8DCE-328DF414B80E
        Path:             /usr/sbin/distnoted
        Architecture:     x86_64h
        Num samples:      1000 (1-1000)

          Thread 0x39c    1000 samples (1-1000)    priority 31 (base 31)
          1000  ??? (distnoted + 32209) [0x108c7fdd1]
            1000  CFRunLoopRun + 40 (CoreFoundation + 1072619) [0x7ff811fc1deb]
              1000  ??? (<0AB1C2D3-E4F5-4A6B-8C7D-9E0F1A2B3C4D> + 4096) [0x7ff900001000]
               *1000  ipc_mqueue_receive_continue + 0 (kernel + 335600) [0xffffff8000261ef0]

          Binary Images:
                   0x108c78000 -        0x108c8bfff  distnoted (1863)                    <3CA57E31-5F29-3847-8DCE-328DF414B80E>  /usr/sbin/distnoted
                0x7ff811ebc000 -     0x7ff8123befff  com.apple.CoreFoundation 6.9 (1863) <F8E45EF9-9FD2-3331-BB1B-703D5DACDAF1>  /System/Library/Frameworks/CoreFoundation.framework/Versions/A/CoreFoundation
           *0xffffff8000210000 - 0xffffff8000c0ffff  kernel (8020.121.3)                 <3C587984-4004-3C76-8ADF-997822977184>  /System/Library/Kernels/kernel

        """

    @Test func eachProcessSectionsImagesHaveItsArch() throws {
        let report = try ReportParser.parse(Array(Self.twoArchs.utf8))
        #expect(report.format == .microstackshot)
        #expect(report.arch == .x86_64, "the first section's, for the report as a whole")
        let archs = report.images.map { "\($0.name) \($0.arch?.rawValue ?? "none")" }
        #expect(
            archs == [
                "adid x86_64", "com.apple.CoreFoundation x86_64", "kernel x86_64", "distnoted x86_64h",
                "com.apple.CoreFoundation x86_64h", "kernel x86_64h", "0AB1C2D3-E4F5-4A6B-8C7D-9E0F1A2B3C4D x86_64h",
            ])
        // Each thread's frames are in its own process's images, the image only a sample line
        // names (by UUID) too.
        #expect(report.backtraces.count == 2)
        for (backtrace, arch) in zip(report.backtraces, [Arch.x86_64, .x86_64h]) {
            for frame in backtrace.frames {
                let image = try #require(frame.imageIndex.map { report.images[$0] }, "\(frame)")
                #expect(image.arch == arch, "\(backtrace.name ?? "") \(frame.imageName ?? "") -> \(image.name)")
            }
        }
    }

    @Test(.tags(.corpus), .needsCorpus)
    func everyCorpusProcessKeepsItsArch() throws {
        let report = try ReportParser.parse(
            try Corpus.bytes("inket__MacSymbolicator/Resources/Other/raw-processes.txt"))
        #expect(report.backtraces.count == 7)
        // adid (1 thread) and AirPlayXPCHelper (3) are x86_64, the three distnoted (1 each) x86_64h.
        let expected: [Arch] = [.x86_64, .x86_64, .x86_64, .x86_64, .x86_64h, .x86_64h, .x86_64h]
        for (backtrace, arch) in zip(report.backtraces, expected) {
            let images = backtrace.frames.compactMap { $0.imageIndex.map { report.images[$0] } }
            #expect(images.count == backtrace.frames.count, "\(backtrace.name ?? "")")
            #expect(images.allSatisfy { $0.arch == arch }, "\(backtrace.name ?? ""): \(images.map(\.arch))")
        }
        #expect(report.images.filter { $0.arch == .x86_64h }.count == 15)
        #expect(report.images.filter { $0.arch == .x86_64 }.count == 11)
    }
}
