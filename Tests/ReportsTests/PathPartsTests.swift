// PathParts, the one place paths and keys are cut at their slashes: by bytes, so that a slash
// followed by a combining mark (one Swift character with it) still separates, and with the
// answers the callers had from Foundation and String for ordinary paths.

import SymbolicateModel
import TestSupport
import Testing

struct PathPartsTests {
    /// A path's name is what follows its last separator, byte for byte, as splitting its
    /// UTF-8 at every separator gives it; small and long Strings, with and without backslashes.
    @Test func namesAreWhatFollowsTheLastSeparator() {
        var random = SplitMix64(seed: 0x9A7)
        let pieces = ["/", "\\", "a", "é", "\u{301}", "HoldKit.framework", "", "..", String(repeating: "x", count: 20)]
        for _ in 0..<3000 {
            let path = (0..<Int(random.next() % 7)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }
                .joined()
            for backslash in [false, true] {
                let pieces = Array(path.utf8).split(
                    omittingEmptySubsequences: false,
                    whereSeparator: { $0 == UInt8(ascii: "/") || (backslash && $0 == UInt8(ascii: "\\")) })
                let expected = String(decoding: pieces.last ?? [], as: UTF8.self)
                #expect(PathParts.name(path, backslash: backslash) == expected, "\(path.debugDescription)")
            }
        }
    }

    @Test func ordinaryPaths() {
        #expect(PathParts.split("/a//b/") == ["a", "b"])
        #expect(PathParts.split("") == [])
        #expect(PathParts.split("a\\b/c", backslash: true) == ["a", "b", "c"])
        #expect(PathParts.split("a\\b/c") == ["a\\b", "c"])
        #expect(PathParts.last("a/b/") == "b")
        #expect(PathParts.last("/") == nil)
        #expect(PathParts.last("") == nil)
        #expect(PathParts.last("x") == "x")
        #expect(PathParts.last("/usr/lib//libc.dylib//") == "libc.dylib")
        #expect(PathParts.name("a/b") == "b")
        #expect(PathParts.name("a/") == "")
        #expect(PathParts.name("b") == "b")
        #expect(PathParts.parent("/x/y") == "/x")
        #expect(PathParts.parent("/x") == "/")
        #expect(PathParts.parent("x") == ".")
        #expect(PathParts.isAbsolute("/x") && !PathParts.isAbsolute("x/") && !PathParts.isAbsolute(""))
    }

    @Test func aSlashFollowedByACombiningMarkStillSeparates() {
        let path = "/out/\u{301}x/\u{301}y.crash"
        #expect(!path.hasPrefix("/out/"), "the premise: as characters, the slash is not a slash")
        #expect(PathParts.split(path) == ["out", "\u{301}x", "\u{301}y.crash"])
        #expect(PathParts.last(path) == "\u{301}y.crash")
        #expect(PathParts.name(path) == "\u{301}y.crash")
        #expect(PathParts.parent(path) == "/out/\u{301}x")
        #expect(PathParts.isAbsolute("/\u{301}x"))
    }

    /// A frame's file name, as reports print it, is what follows the last slash or backslash byte.
    @Test func aFramesFileNameFollowsTheLastSeparatorByte() {
        #expect(SymbolicatedFrame(symbol: "f", file: "/src/App/main.swift").fileName == "main.swift")
        #expect(SymbolicatedFrame(symbol: "f", file: "C:\\src\\main.cpp").fileName == "main.cpp")
        #expect(SymbolicatedFrame(symbol: "f", file: "main.swift").fileName == "main.swift")
        #expect(SymbolicatedFrame(symbol: "f").fileName == nil)
        #expect(SymbolicatedFrame(symbol: "f", file: "/src/a/\u{301}b.swift").fileName == "\u{301}b.swift")
        #expect(SymbolicatedFrame(symbol: "f", file: "C:\\a\\\u{301}b.cpp").fileName == "\u{301}b.cpp")
    }
}
