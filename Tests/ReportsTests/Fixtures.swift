// Fixtures: small hand-written crash reports used by the format, writer and robustness tests.
// Each exercises a documented variant (thread spellings, frame forms, the parenthesized Last
// Exception Backtrace, names with spaces); the expected values in the tests were read off
// these texts by hand.

enum Fixtures {
    static let textReport = """
        Incident Identifier: 11111111-2222-3333-4444-555555555555
        CrashReporter Key:   0123456789abcdef
        Hardware Model:      iPhone14,2
        Process:             My App [123]
        Path:                /private/var/containers/Bundle/Application/X/My App.app/My App
        Identifier:          com.example.myapp
        Version:             1.0 (1)
        Code Type:           ARM-64 (Native)
        Role:                Foreground
        Parent Process:      launchd [1]
        Date/Time:           2022-08-04 01:11:01.2455 +0900
        OS Version:          iPhone OS 15.5 (19F77)
        Report Version:      104

        Exception Type:  EXC_CRASH (SIGABRT)
        Exception Codes: 0x0000000000000000, 0x0000000000000000
        Triggered by Thread:  0

        Application Specific Information:
        *** Terminating app due to uncaught exception
        second line

        Last Exception Backtrace:
        (0x1a8e8c04c 0x1a0a5840c 0x1007da4bc 0x9999)

        Thread 0 name:   Dispatch queue: com.apple.main-thread
        Thread 0 Crashed:
        0   libsystem_kernel.dylib        \t       0x1e0ab1234 0x1e0aaf000 + 8756
        1   My App                        \t       0x1007da4bc 0x1007d4000 + 25788
        2   My App                        \t       0x1007da1cc ViewController.viewDidLoad() + 40 (ViewController.swift:19)
        3   CoreFoundation                \t       0x1a8e8c04c <redacted> + 20

        Thread 1 name:  com.example.worker
        Thread 1:
        0   libsystem_kernel.dylib        \t       0x1e0ab0000 0x1e0aaf000 + 4096
        1   ???                           \t       0x0000000000001234 0x0 + 0

        Thread 2 Crashed:: Dispatch queue: com.apple.root
        0   CoreFoundation                  0x1a8e8d000 0x1a8e88000 + 20480 (CFRunLoopRun + 12)

        Binary Images:
               0x1e0aaf000 -        0x1e0ae4fff libsystem_kernel.dylib arm64e  <1db00c916ad8384085030c6fbffa8e0b> /usr/lib/system/libsystem_kernel.dylib
               0x1007d4000 -        0x1007dbfff My App arm64  <82d13d98219e3040b62a07a297007a7c> /private/var/containers/Bundle/Application/X/My App.app/My App
               0x1a8e88000 -        0x1a92ddfff CoreFoundation arm64e  <5198fb5756453b34a49ff32b52256cf3> /System/Library/Frameworks/CoreFoundation.framework/CoreFoundation

        """

    static let ipsReport = """
        {"app_name":"MyApp","bug_type":"309","name":"MyApp"}
        {
          "procName" : "MyApp",
          "cpuType" : "ARM-64",
          "faultingThread" : 0,
          "threads" : [{"triggered":true,"queue":"com.apple.main-thread","frames":[{"imageOffset":25788,"imageIndex":1},{"imageOffset":100,"symbol":"old","symbolLocation":4,"imageIndex":0},{"imageOffset":25036,"imageIndex":1}]},{"id":2,"name":"worker","frames":[{ "imageOffset" : 8, "imageIndex" : 0 }]}],
          "lastExceptionBacktrace" : [{"imageOffset":4,"imageIndex":0}],
          "usedImages" : [{"source":"P","arch":"arm64e","base":7207194624,"size":5337088,"uuid":"178beeaf-85dc-35a7-b02c-b951eba169ce","path":"\\/usr\\/lib\\/swift\\/libswiftCore.dylib","name":"libswiftCore.dylib"},{"source":"P","arch":"arm64","base":4303175680,"size":32768,"uuid":"82d13d98-219e-3040-b62a-07a297007a7c","path":"\\/private\\/var\\/My.app\\/MyApp","name":"MyApp"}],
          "procName" : "Duplicate",
          "extra" : {"unknown":[1,2,{"x":null}],"s":"\\u00e9\\ud83d\\ude00"}
        }
        """

    /// Lines of a text, split on LF.
    static func lines(_ s: String) -> [String] {
        s.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }
}
