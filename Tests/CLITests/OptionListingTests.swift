// Every command's help and its parser agree: each option its OPTIONS block lists (and each one
// its USAGE lines name) is accepted, with a value exactly when the help gives one a value name,
// and no spelling any command knows is accepted by a command whose help does not list it. The
// parser is asked through the same path `symbolicate CMD ...` takes, and the help checked is
// the one the built binary prints.

import Foundation
import Testing

@testable import CLI

@Suite struct OptionListingTests {
    /// Follows the option under test: unknown to every command, so the parser always stops at
    /// one of these (after the option, or after its value) unless it stopped at the option.
    static let probe = "--no-such-option-anywhere"

    static func command(_ name: String) throws -> any Command.Type {
        try #require(commandList.first { $0.name == name }, "no command \(name)")
    }

    /// One entry of an OPTIONS block: its spellings, and whether it shows a value name.
    struct Listed: Equatable {
        var spellings: [String]
        var takesValue: Bool
    }

    /// The entries of the block under `heading` (`OPTIONS:`), up to the first blank line.
    static func listed(in help: String, heading: String = "OPTIONS:") -> [Listed] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == heading }) else { return [] }
        var entries: [Listed] = []
        for line in lines[(start + 1)...] {
            if line.isEmpty { break }
            guard line.hasPrefix("  -") else { continue }
            let label = line.dropFirst(2).components(separatedBy: "  ")[0]
            let parts = label.components(separatedBy: ", ")
            let spellings = parts.map { String($0.split(separator: " ")[0]) }
            entries.append(Listed(spellings: spellings, takesValue: parts.last?.contains(" ") ?? false))
        }
        return entries
    }

    /// The option words of the USAGE lines (`[--store DIR]` gives `--store`).
    static func usageWords(in help: String) -> [String] {
        var words: [String] = []
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty { break }
            for word in line.split(separator: " ") {
                let trimmed = word.drop { "[(".contains($0) }.prefix { !"])|.".contains($0) }
                if trimmed.count > 1, trimmed.hasPrefix("-") { words.append(String(trimmed)) }
            }
        }
        return words
    }

    /// What the command's parser says of `arguments`: nil when it takes them all.
    static func parse(_ command: any Command.Type, _ arguments: [String]) -> String? {
        do {
            _ = try Arguments(arguments, options: command.acceptedOptions)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Whether the parser knows `spelling`: given before two probes, it stops at a probe.
    static func accepts(_ command: any Command.Type, _ spelling: String) -> Bool {
        parse(command, [spelling, probe, probe]) == "unknown option \(probe)"
    }

    @Test(arguments: commandList.map { $0.name })
    func everyListedOptionIsAccepted(_ name: String) throws {
        let command = try Self.command(name)
        let entries = Self.listed(in: command.help)
        #expect(!entries.isEmpty, "\(name) --help lists no options")
        for entry in entries {
            for spelling in entry.spellings {
                #expect(Self.accepts(command, spelling), "\(name) lists \(spelling) but does not accept it")
                let alone = Self.parse(command, [spelling])
                if entry.takesValue {
                    #expect(alone == "option \(spelling) needs a value", "\(name) \(spelling) lists a value")
                } else {
                    #expect(alone == nil, "\(name) lists \(spelling) without a value, yet it wants one")
                }
            }
        }
        for word in Self.usageWords(in: command.help) {
            #expect(Self.accepts(command, word), "\(name)'s USAGE names \(word), which it does not accept")
        }
    }

    @Test(arguments: commandList.map { $0.name })
    func everyAcceptedOptionIsListed(_ name: String) throws {
        let command = try Self.command(name)
        let listed = Set(Self.listed(in: command.help).flatMap(\.spellings))
        var known = Set(commandList.flatMap { $0.acceptedOptions.flatMap(\.spec.names) })
        known.formUnion(["-h", "--help", "--version", "-V", "--output", "--verbose", "--jobs", "--dsym", "-q"])
        for spelling in known.sorted() where Self.accepts(command, spelling) {
            #expect(listed.contains(spelling), "\(name) accepts \(spelling) but its --help does not list it")
        }
    }

    @Test(arguments: commandList.map { $0.name })
    func theBinaryPrintsThisHelp(_ name: String) throws {
        let command = try Self.command(name)
        let words = command == SymbolicateCommand.self ? ["-o", "out.crash"] : [name]
        let r = try CLI.run(words + ["--help"])
        #expect(r.status == 0)
        #expect(r.stdoutText == command.help)
    }

    /// The hand-written paragraphs of a help are filled: no line of one ends where the next
    /// line's first word would still fit in 80 columns (a line broken mid-phrase).
    @Test(arguments: commandList.map { $0.name })
    func everyParagraphIsFilled(_ name: String) throws {
        let lines = try Self.command(name).help.split(separator: "\n", omittingEmptySubsequences: false)
        for (line, next) in zip(lines, lines.dropFirst()) {
            guard !line.isEmpty, !line.hasPrefix(" "), let word = next.split(separator: " ").first,
                !next.hasPrefix(" ")
            else { continue }
            #expect(line.count + 1 + word.count > 80, "\(name) --help breaks '\(line)' before '\(word)'")
        }
    }

    @Test func theOverviewListsTheDefaultCommandsOptions() throws {
        let r = try CLI.run(["--help"])
        let overview = Self.listed(in: r.stdoutText, heading: "OPTIONS (of the default command):")
        #expect(!overview.isEmpty)
        #expect(overview == Self.listed(in: SymbolicateCommand.help))
    }
}
