// The symbol column of a frame a report already names, in every form it comes in: Apple's
// (`symbol + off (File.m:12)`), and the forms atos and Xcode's symbolicator print with the image
// (`symbol (in Image) (File.swift:9)`, `symbol (in Image) + off`), whose file may be
// `<compiler-generated>`. The image is never part of the symbol, nor taken for a file.

import SymbolicateModel
import Testing

@testable import Reports

struct SymbolColumnTests {
    @Test(arguments: [
        (
            "specialized static CrashClass.pleaseCrash() (in iOSCrashingTest) (<compiler-generated>:0)",
            SymbolText(symbol: "specialized static CrashClass.pleaseCrash()", file: "<compiler-generated>", line: 0)
        ),
        (
            "main (in iOSCrashingTest) (AppDelegate.swift:9)",
            SymbolText(symbol: "main", file: "AppDelegate.swift", line: 9)
        ),
        ("__pthread_kill (in libsystem_kernel.dylib) + 8", SymbolText(symbol: "__pthread_kill", offset: 8)),
        ("objc_exception_throw (in libobjc.A.dylib)", SymbolText(symbol: "objc_exception_throw")),
        ("-[Foo bar:] + 12 (Foo.m:3)", SymbolText(symbol: "-[Foo bar:]", offset: 12, file: "Foo.m", line: 3)),
        ("closure #1 in f() + 4", SymbolText(symbol: "closure #1 in f()", offset: 4)),
        ("f(int) (in) + 2", SymbolText(symbol: "f(int) (in)", offset: 2)),
    ])
    func symbolColumns(column: String, expected: SymbolText) {
        #expect(FrameLine.describe(column) == expected)
    }
}

/// The symbol column the writers print for a symbolicated level, written as bytes: the same
/// text as spelling it out with string interpolation, whatever is missing or unusual.
struct WrittenSymbolColumnTests {
    @Test(arguments: [
        (
            SymbolicatedFrame(symbol: "f()", symbolOffset: 12, file: "/src/App/View.swift", line: 16),
            "f() + 12 (View.swift:16)"
        ),
        (SymbolicatedFrame(symbol: "g", file: "C:\\src\\g.c", line: 0), "g (g.c:0)"),
        (SymbolicatedFrame(symbol: "h", symbolOffset: 0, file: "h.m"), "h + 0 (h.m)"),
        (SymbolicatedFrame(symbol: "i", file: "/src/dir/", line: -3), "i (:-3)"),
        (SymbolicatedFrame(symbol: "ünïcode ✓", symbolOffset: UInt64.max), "ünïcode ✓ + 18446744073709551615"),
        (SymbolicatedFrame(symbol: "", file: "", line: 1_000_000), " (:1000000)"),
    ])
    func columns(frame: SymbolicatedFrame, expected: String) {
        #expect(ReportWriter.symbolColumn(frame) == expected)
        var bytes = Array("prefix ".utf8)
        ReportWriter.appendSymbolColumn(frame, to: &bytes)
        #expect(bytes == Array(("prefix " + expected).utf8))
    }
}
