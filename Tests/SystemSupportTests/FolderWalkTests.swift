// FolderWalk, the one folder walk of symbol-file scans, store imports and batch inputs, on a
// small tree made in a temporary folder: the order (sorted, a folder before what it holds), the
// relative names, links to files and to folders (followed or passed over), a link loop, a
// folder passed over, a walk stopped part way, and a folder whose names cannot be read.

import Foundation
import TestSupport
import Testing

@testable import SystemSupport

struct FolderWalkTests {
    /// root/b.txt, root/a/x.txt, root/a/c/y.txt, root/link-to-a -> a, root/link-to-x -> a/x.txt,
    /// root/a/c/loop -> .., root/dangling -> missing.
    static func makeTree() throws -> String {
        let root = try Repository.scratchFolder("folder-walk")
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/a/c", withIntermediateDirectories: true)
        for file in ["b.txt", "a/x.txt", "a/c/y.txt"] {
            guard fm.createFile(atPath: root + "/" + file, contents: Data(file.utf8)) else {
                throw CocoaError(.fileWriteUnknown)
            }
        }
        try fm.createSymbolicLink(atPath: root + "/link-to-a", withDestinationPath: "a")
        try fm.createSymbolicLink(atPath: root + "/link-to-x", withDestinationPath: "a/x.txt")
        try fm.createSymbolicLink(atPath: root + "/a/c/loop", withDestinationPath: "..")
        try fm.createSymbolicLink(atPath: root + "/dangling", withDestinationPath: "missing")
        return root
    }

    static func entries(_ root: String, options: FolderWalk.Options, _ step: (FolderWalk.Entry) -> FolderWalk.Step)
        -> [String]
    {
        var seen: [String] = []
        FolderWalk.walk(root, options: options) { entry in
            #expect(entry.path == root + "/" + entry.relativePath)
            #expect(String(entry.folderPrefix) + entry.name == entry.relativePath)
            seen.append(entry.kind == .folder ? entry.relativePath + "/" : entry.relativePath)
            return step(entry)
        }
        return seen
    }

    @Test func physicalWalkPassesOverLinksToFolders() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let seen = Self.entries(root, options: .physical) { _ in .proceed }
        #expect(seen == ["a/", "a/c/", "a/c/y.txt", "a/x.txt", "b.txt", "link-to-x"])
    }

    @Test func followingWalkEntersEachFolderOnce() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let seen = Self.entries(root, options: .followingLinks) { _ in .proceed }
        // `a/c/loop` leads back to `a`, and `link-to-a` to `a`: both are reached, neither entered.
        #expect(seen == ["a/", "a/c/", "a/c/loop/", "a/c/y.txt", "a/x.txt", "b.txt", "link-to-a/", "link-to-x"])
        var files: [String] = []
        FolderWalk.regularFiles(under: root) { path, _ in files.append(path) }
        #expect(files == ["a/c/y.txt", "a/x.txt", "b.txt", "link-to-x"].map { root + "/" + $0 })
    }

    /// A name beginning with a combining mark makes one character with the "/" before it; the
    /// folder part of its relative path is still the folders and a "/".
    @Test func namesBeginningWithACombiningMark() throws {
        let root = try Repository.scratchFolder("folder-walk-mark")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/a", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: root + "/a/\u{301}z.zip", contents: Data("z".utf8)))
        var prefixes: [String] = []
        FolderWalk.walk(root, options: .physical) { entry in
            if entry.kind == .file { prefixes.append(String(entry.folderPrefix)) }
            return .proceed
        }
        #expect(prefixes == ["a/"])
        #expect(Self.entries(root, options: .physical) { _ in .proceed } == ["a/", "a/\u{301}z.zip"])
    }

    @Test func depthLimitStopsListing() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let options = FolderWalk.Options(followsLinksToFolders: false, maxDepth: 2)
        let seen = Self.entries(root, options: options) { _ in .proceed }
        #expect(seen == ["a/", "a/c/", "a/x.txt", "b.txt", "link-to-x"])
    }

    @Test func skippedFolderAndStop() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let skipped = Self.entries(root, options: .physical) { $0.relativePath == "a/c" ? .skip : .proceed }
        #expect(skipped == ["a/", "a/c/", "a/x.txt", "b.txt", "link-to-x"])
        let stopped = Self.entries(root, options: .physical) { $0.name == "y.txt" ? .stop : .proceed }
        #expect(stopped == ["a/", "a/c/", "a/c/y.txt"])
    }

    @Test(.enabled(if: getuid() != 0, "root lists a folder whatever its permissions"))
    func unlistableFolderIsReported() throws {
        let root = try Self.makeTree()
        defer {
            chmod(root + "/a/c", 0o755)
            try? FileManager.default.removeItem(atPath: root)
        }
        #expect(chmod(root + "/a/c", 0) == 0)
        var unlistable: [String] = []
        var seen: [String] = []
        FolderWalk.walk(
            root, options: .physical, unlistable: { folder, _ in unlistable.append(folder) },
            visit: { entry in
                seen.append(entry.relativePath)
                return .proceed
            })
        #expect(unlistable == [root + "/a/c"])
        #expect(seen == ["a", "a/c", "a/x.txt", "b.txt", "link-to-x"])
    }
}
