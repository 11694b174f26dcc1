// A store folder without write permission, used by a user that permissions bind: the tests run
// as root, who ignores them, so the commands run through setpriv as `nobody`. Reading (list,
// symbolication through the store, verify) works; import says the store is read-only.

import Foundation
import Testing

@Suite struct ReadOnlyStoreCLITests {
    static let setpriv = "/usr/bin/setpriv"
    static let symbols = Paths.samples + "/build/ios-arm64-dwarf4"
    static let report = Paths.samples + "/reports/HoldApp-ios-arm64-dwarf4.crash"
    static var ready: Bool {
        geteuid() == 0 && FileManager.default.isExecutableFile(atPath: setpriv)
            && FileManager.default.fileExists(atPath: symbols) && FileManager.default.fileExists(atPath: report)
    }

    /// Runs `executable` as `nobody` (uid and gid 65534).
    static func runAsNobody(_ executable: String, _ args: [String]) throws -> CLIResult {
        try CLI.run(["--reuid=65534", "--regid=65534", "--clear-groups", executable] + args, executable: setpriv)
    }

    @Test(.enabled(if: ready, "needs root, setpriv and Samples (to run as another user)"))
    func aStoreWithoutWritePermissionIsReadableAndRefusesImports() throws {
        let dir = NSTemporaryDirectory() + "/symbolicate-rostore-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // nobody may not reach the checkout (a clone under /root, say): the binary, the report and
        // the symbols it uses are copied next to the store.
        #expect(chmod(dir, 0o755) == 0)
        let binary = dir + "/symbolicate"
        let report = dir + "/report.crash"
        let symbols = dir + "/symbols"
        try FileManager.default.copyItem(atPath: CLI.executable, toPath: binary)
        try FileManager.default.copyItem(atPath: Self.report, toPath: report)
        try FileManager.default.copyItem(atPath: Self.symbols, toPath: symbols)
        let store = dir + "/store"
        #expect(try CLI.run(["import", "--store", store, Self.symbols]).status == 0)
        for folder in [dir, store, store + "/builds", store + "/tmp"] { #expect(chmod(folder, 0o555) == 0) }
        for name in try FileManager.default.contentsOfDirectory(atPath: store + "/builds") {
            #expect(chmod(store + "/builds/" + name, 0o444) == 0)
        }
        #expect(chmod(store + "/catalog.sqlite", 0o444) == 0)

        let list = try Self.runAsNobody(binary, ["list", "--store", store])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdoutText.contains("HoldApp") && list.stdoutText.contains("ready"))
        let symbolicated = try Self.runAsNobody(binary, ["--store", store, report])
        #expect(symbolicated.status == 0, "\(symbolicated.stderr)")
        #expect(symbolicated.stderr.contains("HoldApp: symbolicated 9/9 frames"), "\(symbolicated.stderr)")
        let verify = try Self.runAsNobody(binary, ["verify", "--store", store])
        #expect(verify.status == 0, "\(verify.stderr)")
        let importing = try Self.runAsNobody(binary, ["import", "--store", store, symbols])
        #expect(importing.status == 1)
        #expect(
            importing.stderr == "error: store \(store) is read-only: import needs write access "
                + "(check the mount and the folder's permissions)\n")
    }
}
