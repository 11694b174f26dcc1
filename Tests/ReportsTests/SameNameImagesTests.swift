// Two images of one report may share a name (an audio plug-in `CoreAudio.component` and the
// `CoreAudio` framework): a frame that names one of them belongs to the one whose range holds
// its address, not to whichever is listed first.

import Reports
import SymbolicateModel
import Testing

struct SameNameImagesTests {
    static let text = """
        Process:             Player [77]
        Identifier:          com.example.player
        Version:             1.0 (1)
        Code Type:           X86-64 (Native)
        Date/Time:           2022-08-04 01:11:01.2455 +0900
        OS Version:          Mac OS X 10.15.7 (19H15)
        Report Version:      12

        Exception Type:        EXC_BAD_ACCESS (SIGSEGV)

        Thread 0 Crashed:
        0   CoreAudio                     0x00007fff3444589a 0x7fff3440c000 + 235674
        1   CoreAudio                     0x000000012a3d2000 0x12a3d1000 + 4096
        2   CoreAudio                     0x00007fff3440d000 CoreAudio + 4096

        Binary Images:
               0x12a3d1000 -        0x12a576fff  CoreAudio (5.0) <1EBB28B5-0000-4000-8000-000000000001> /Library/Audio/Plug-Ins/Components/CoreAudio.component/Contents/MacOS/CoreAudio
            0x7fff3440c000 -     0x7fff3449cfff  CoreAudio (5.0) <5845D43B-0000-4000-8000-000000000002> /System/Library/Frameworks/CoreAudio.framework/Versions/A/CoreAudio

        """

    @Test func eachFrameIsInTheImageThatHoldsItsAddress() throws {
        let report = try ReportParser.parse(Array(Self.text.utf8))
        #expect(report.images.count == 2)
        let frames = try #require(report.backtraces.first?.frames)
        let uuids = frames.map { $0.imageIndex.flatMap { report.images[$0].uuid?.uuidString } }
        #expect(
            uuids == [
                "5845D43B-0000-4000-8000-000000000002", "1EBB28B5-0000-4000-8000-000000000001",
                "5845D43B-0000-4000-8000-000000000002",
            ])
    }
}
