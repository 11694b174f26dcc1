// KSCrash's Example-Reports hold each crash as KSCrash's JSON and as the Apple text its own
// Apple-format filter rendered from it on the device (time zone +0900). `symbolicate --format
// crash` of the JSON, with TZ at +0900 and no symbols (these are ARMv7 reports from iOS 4.3.3 with
// no dSYMs), must give that text line for line; the Notable Addresses dumps (and the object an NSException referenced) are JSON and compared
// as parsed JSON.

import Foundation
import TestSupport
import Testing

@Suite struct KSCrashTwinTests {
    static let examples = [
        "Abort", "BadPointer", "CorruptMemory", "CorruptObject", "CrashInHandler", "MainThreadDeadlock",
        "NSException", "StackOverflow", "Zombie", "ZombieNSException",
    ]

    /// The text's lines with each JSON dump (`Notable Addresses:`, ...) taken out, and the dumps parsed.
    static func split(_ text: String) throws -> (lines: [String], dumps: [NSDictionary]) {
        var lines: [String] = []
        var dumps: [NSDictionary] = []
        var dump: [String]? = nil
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if var open = dump {
                open.append(line)
                if line == "}" {
                    let data = Data(open.joined(separator: "\n").utf8)
                    dumps.append(try #require(try JSONSerialization.jsonObject(with: data) as? NSDictionary))
                    dump = nil
                } else {
                    dump = open
                }
                continue
            }
            lines.append(line)
            if line == "Notable Addresses:" || line == "Object referenced by NSException:"
                || line == "Referenced object:"
            {
                dump = []
            }
        }
        return (lines, dumps)
    }

    @Test(.tags(.corpus), .needsCorpus, arguments: examples)
    func renderingMatchesKSCrashsOwn(name: String) throws {
        let folder = Paths.corpus + "/kstenerud__KSCrash/Example-Reports/"
        let result = try CLI.run(["--format", "crash", folder + name + ".json"], environment: ["TZ": "JST-9"])
        #expect(result.status == 0, "\(result.stderr)")
        let ours = try Self.split(result.stdoutText)
        let theirs = try Self.split(
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: folder + name + ".txt")), as: UTF8.self))
        let a = ours.lines
        let b = theirs.lines
        for (i, (x, y)) in zip(a, b).enumerated() where x != y {
            Issue.record("line \(i + 1): ours \(x.debugDescription), KSCrash's \(y.debugDescription)")
            break
        }
        #expect(a.count == b.count)
        #expect(ours.dumps == theirs.dumps)
    }
}
