// SymbolFileFinder on what users hand over: the corpus (with its dSYMs nested inside a folder
// itself named *.dSYM), an .xcarchive-like tree made in a temporary folder (framework version
// symlinks, a symlink loop, non-object files), single files and missing paths. Also checks every
// corpus dSYM slice's UUID and arch against MANIFEST.tsv.

import Foundation
import SymbolicateModel
import TestSupport
import Testing

@testable import ObjectFiles

struct SymbolFileFinderTests {
    @Test(.tags(.corpus), .needsCorpus)
    func nestedDSYMBundlesInTheCorpus() throws {
        let embedded = Fixtures.corpus + "/inket__MacSymbolicator/Resources/dSYMs/Embedded.app.dSYM"
        let files = try SymbolFileFinder.objectFiles(in: embedded)
        #expect(
            files == [
                embedded + "/DSYM Example.app.dSYM/Contents/Resources/DWARF/DSYM Example",
                embedded + "/Framework_1.framework.dSYM/Contents/Resources/DWARF/Framework_1",
            ])
    }

    /// (path relative to the corpus, [(uuid, arch)]) for every dSYM the manifest describes.
    static func manifestDSYMs() throws -> [(String, [(BuildID, String)])] {
        let text = try String(contentsOfFile: Fixtures.corpus + "/MANIFEST.tsv", encoding: .utf8)
        var out: [(String, [(BuildID, String)])] = []
        for line in text.split(separator: "\n").dropFirst() {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 9, f[5] == "macho-dsym-dwarf", let range = f[8].range(of: "UUIDs: ") else { continue }
            var ids: [(BuildID, String)] = []
            // "UUIDs: D7CC0747-... (x86_64); 9DDA3C1A-... (arm64); QUIRK: ..."
            for item in f[8][range.upperBound...].components(separatedBy: "; ") {
                let parts = item.split(separator: " ")
                guard parts.count >= 2, let id = BuildID(string: parts[0]) else { continue }
                ids.append((id, parts[1].trimmingCharacters(in: "()")))
            }
            out.append((f[0], ids))
        }
        return out
    }

    @Test(.tags(.corpus), .needsCorpus)
    func corpusSlicesMatchTheManifest() throws {
        let entries = try Self.manifestDSYMs()
        #expect(entries.count >= 10)
        for (path, ids) in entries {
            let slices = try ObjectFile.slices(atPath: Fixtures.corpus + "/" + path)
            let found = slices.map { "\($0.info.uuid.uuidString) \($0.info.arch)" }.sorted()
            let expected = ids.map { "\($0.0.uuidString) \($0.1)" }.sorted()
            #expect(found == expected, "\(path)")
            for s in slices {
                #expect(s.info.kind == .debugInfo)
                #expect(s.info.name == (path as NSString).lastPathComponent)
            }
        }
        let all = try SymbolFileFinder.objectFiles(in: Fixtures.corpus)
        for (path, _) in entries {
            #expect(all.contains(Fixtures.corpus + "/" + path), "\(path) not found by scanning")
        }
    }

    @Test(.enabled(if: Fixtures.exists(Fixtures.samples + "/ios-arm64-dwarf5"), "no Samples builds"))
    func archiveLayoutWithSymlinks() throws {
        let sample = Fixtures.samples + "/ios-arm64-dwarf5"
        let dir = try Fixtures.temporaryDirectory()
        defer { Fixtures.cleanup(dir) }
        let fm = FileManager.default
        let archive = dir + "/Hold.xcarchive"
        let dwarf = archive + "/dSYMs/HoldApp.app.dSYM/Contents/Resources/DWARF"
        let nested = archive + "/dSYMs/HoldKit.framework.dSYM/Contents/Resources/DWARF"
        let app = archive + "/Products/Applications/HoldApp.app"
        let framework = app + "/Frameworks/HoldKit.framework"
        for d in [dwarf, nested, framework + "/Versions/A", app + "/PlugIns/Ext.appex"] {
            try fm.createDirectory(atPath: d, withIntermediateDirectories: true)
        }
        try fm.copyItem(
            atPath: sample + "/HoldApp.app.dSYM/Contents/Resources/DWARF/HoldApp", toPath: dwarf + "/HoldApp")
        try fm.copyItem(
            atPath: sample + "/HoldKit.framework.dSYM/Contents/Resources/DWARF/HoldKit", toPath: nested + "/HoldKit")
        try fm.copyItem(atPath: sample + "/HoldApp.app/HoldApp", toPath: app + "/HoldApp")
        try fm.copyItem(
            atPath: sample + "/HoldApp.app/Frameworks/HoldKit.framework/HoldKit",
            toPath: framework + "/Versions/A/HoldKit")
        try fm.copyItem(atPath: sample + "/HoldApp.app/HoldApp", toPath: app + "/PlugIns/Ext.appex/Ext")
        try fm.createSymbolicLink(atPath: framework + "/Versions/Current", withDestinationPath: "A")
        try fm.createSymbolicLink(atPath: framework + "/HoldKit", withDestinationPath: "Versions/Current/HoldKit")
        try fm.createSymbolicLink(atPath: app + "/loop", withDestinationPath: "..")
        try fm.createSymbolicLink(atPath: app + "/dangling", withDestinationPath: "nowhere")
        try "<plist/>".write(toFile: app + "/Info.plist", atomically: true, encoding: .utf8)
        try "CAFE".write(toFile: archive + "/notes.txt", atomically: true, encoding: .utf8)

        let found = try SymbolFileFinder.objectFiles(in: archive)
        #expect(
            found == [
                app + "/Frameworks/HoldKit.framework/HoldKit",
                app + "/HoldApp",
                app + "/PlugIns/Ext.appex/Ext",
                dwarf + "/HoldApp",
                nested + "/HoldKit",
            ])
        #expect(try SymbolFileFinder.objectFiles(in: archive + "/dSYMs") == [dwarf + "/HoldApp", nested + "/HoldKit"])
        #expect(try SymbolFileFinder.objectFiles(in: app + "/HoldApp") == [app + "/HoldApp"])
        #expect(try SymbolFileFinder.objectFiles(in: app + "/Info.plist") == [])
        #expect(throws: SymbolicateError.self) { try SymbolFileFinder.objectFiles(in: dir + "/missing") }
        do {
            _ = try SymbolFileFinder.objectFiles(in: dir + "/missing")
        } catch let e as SymbolicateError {
            #expect(e.code == .notFound)
        }
    }
}
