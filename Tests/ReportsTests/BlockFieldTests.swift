// Header values that run over several lines in Apple's text reports: `Termination Reason:`
// followed by the explanation (a privacy violation's), `Kernel Triage:` followed by one line per
// event, `VM Region Info:` followed by its table. The value is every line up to the next blank
// line or field, as the `.ips` renderer writes them.

import Reports
import SymbolicateModel
import Testing

struct BlockFieldTests {
    static let text = """
        Incident Identifier: 11111111-2222-3333-4444-555555555555
        Hardware Model:      iPhone14,2
        Process:             My App [123]
        Identifier:          com.example.myapp
        Version:             1.0 (1)
        Code Type:           ARM-64 (Native)
        OS Version:          iPhone OS 15.5 (19F77)
        Report Version:      104

        Exception Type:  EXC_CRASH (SIGABRT)
        Exception Codes: 0x0000000000000000, 0x0000000000000000
        Termination Reason: TCC 0
        This app has crashed because it attempted to access privacy-sensitive data without a usage description.
        Triggered by Thread:  0

        Kernel Triage:
        VM - pmap_enter failed with resource shortage
        VM - pmap_enter failed with resource shortage

        Thread 0 Crashed:
        0   libsystem_kernel.dylib        \t       0x1e0ab1234 0x1e0aaf000 + 8756

        Binary Images:
               0x1e0aaf000 -        0x1e0ae4fff libsystem_kernel.dylib arm64e  <a7c3e1f052d43b8e9f610d4c2b7e8a15> /usr/lib/system/libsystem_kernel.dylib

        """

    @Test func continuedValuesKeepTheirLines() throws {
        let report = try ReportParser.parse(Array(Self.text.utf8))
        #expect(
            report.field("Termination Reason")
                == "TCC 0\nThis app has crashed because it attempted to access privacy-sensitive data without a usage description."
        )
        #expect(
            report.field("Kernel Triage")
                == "VM - pmap_enter failed with resource shortage\nVM - pmap_enter failed with resource shortage")
        #expect(report.field("Triggered by Thread") == "0")
        #expect(report.backtraces.first?.frames.count == 1)
        #expect(ReportWriter.write(report, results: [:]) == Array(Self.text.utf8))
    }
}
