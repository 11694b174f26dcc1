// Small file systems for tests of what a full disk or a read-only mount does to the store: a
// tmpfs of a given size, and a read-only bind mount of a folder (root ignores permissions, so a
// chmod'd folder proves nothing when the tests run as root). Both need mount(8) and the right to
// mount; `Mounts.available` says whether this machine gives it, and tests are disabled otherwise.

import Foundation

enum Mounts {
    /// True when a tmpfs can be mounted and a bind mount made read-only here.
    static let available: Bool = {
        guard let mount = StoreFixtures.tool("mount"), StoreFixtures.tool("umount") != nil,
            let folder = try? StoreFixtures.scratchFolder("mountprobe")
        else { return false }
        guard (try? StoreFixtures.run(mount, ["-t", "tmpfs", "-o", "size=64k", "tmpfs", folder]))?.status == 0 else {
            return false
        }
        defer { unmount(folder) }
        let inside = folder + "/inside"
        let view = folder + "/view"
        guard mkdir(inside, 0o755) == 0, mkdir(view, 0o755) == 0, let read = try? readOnlyView(of: inside, at: view)
        else { return false }
        defer { unmount(read) }
        return creat(read + "/probe", 0o644) < 0 && errno == EROFS
    }()

    /// Mounts a `kilobytes`-sized tmpfs on a new folder and returns the folder.
    static func tmpfs(kilobytes: Int) throws -> String {
        let folder = try StoreFixtures.scratchFolder("tmpfs")
        let result = try StoreFixtures.run(
            StoreFixtures.tool("mount") ?? "/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", folder])
        guard result.status == 0 else { throw MountError(message: result.stderr) }
        return folder
    }

    /// Makes `folder` visible read-only at `view` (a bind mount, remounted read-only).
    @discardableResult
    static func readOnlyView(of folder: String, at view: String) throws -> String {
        let mount = StoreFixtures.tool("mount") ?? "/bin/mount"
        let bind = try StoreFixtures.run(mount, ["--bind", folder, view])
        guard bind.status == 0 else { throw MountError(message: bind.stderr) }
        let ro = try StoreFixtures.run(mount, ["-o", "remount,bind,ro", view])
        guard ro.status == 0 else {
            unmount(view)
            throw MountError(message: ro.stderr)
        }
        return view
    }

    static func unmount(_ folder: String) {
        _ = try? StoreFixtures.run(StoreFixtures.tool("umount") ?? "/bin/umount", ["-l", folder])
    }

    /// Writes into `folder` until its file system is full; returns the filler's path.
    static func fill(_ folder: String) -> String {
        let path = folder + "/filler"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0xA5, count: 4096)
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        return path
    }

    struct MountError: Error, CustomStringConvertible {
        var message: String
        var description: String { "mount failed: \(message)" }
    }
}
