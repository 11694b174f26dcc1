// Fuzz target: the archive readers (libarchive: .zip, .tar, compressed tars), reached through
// the two public ways archives come in, so the target stays the same whichever module holds
// the reader: the symbol store's import of an archive of symbol files, and a batch run over an
// archive of crash reports. Any input may be refused or yield failures in the summaries; none
// may trap, hang, or leave a half-written build in the store, and no member name may make the
// batch run write outside its output folder. The input's first bytes are also read as a member
// name: what ArchiveNames keeps of any name stays inside a folder. (To fuzz the reader module
// directly, call it in `readArchive` below instead; the seeds and the script stay as they are.)

import Archives
import Batch
import Foundation
import FuzzSupport
import Import
import Store
import Symbolication

/// One store and one batch service per process: imports of the same build are "already present".
private let store: SymbolStore = {
    do {
        return try SymbolStore(directory: Fuzz.scratch + "/store")
    } catch {
        FileHandle.standardError.write(Data("cannot open a store: \(error)\n".utf8))
        exit(1)
    }
}()

private let service = SymbolicationService(locator: SymbolLocatorChain([]))

nonisolated(unsafe) private var runNumber = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArchives(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    let name = String(decoding: bytes.prefix(64), as: UTF8.self)
    if let kept = ArchiveNames.sanitize(name) { checkKept(kept, of: name) }
    let path = Fuzz.file("input.archive", bytes)
    readArchive(path)
    return 0
}

/// What sanitize keeps stays inside a folder it is joined to: relative, no empty, `.` or `..`
/// part between any two separator bytes, no NUL byte.
private func checkKept(_ kept: String, of name: String) {
    let bytes = Array(kept.utf8)
    let parts = bytes.split(omittingEmptySubsequences: false) { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") }
    let unsafe = parts.contains { $0.isEmpty || $0.elementsEqual(".".utf8) || $0.elementsEqual("..".utf8) }
    Fuzz.invariant(
        !unsafe && !bytes.contains(0), "sanitize kept \(bytes) of \(Array(name.utf8)), which may leave its folder")
}

private func readArchive(_ path: String) {
    _ = store.importPaths([path], progress: nil)
    let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: store.directory + "/tmp")) ?? []
    Fuzz.invariant(leftovers.isEmpty, "the import left temporary files behind: \(leftovers)")

    runNumber += 1
    let output = Fuzz.scratch + "/batch-\(runNumber)"
    defer { try? FileManager.default.removeItem(atPath: output) }
    let configuration = BatchConfiguration(
        inputs: [path], destination: .directory(output), jobs: 1, progress: .none, maxReportSize: 4 << 20,
        standardInputLines: { nil })
    _ = try? BatchRunner(configuration: configuration, service: service).run()
    let beside = Set((try? FileManager.default.contentsOfDirectory(atPath: Fuzz.scratch)) ?? [])
    Fuzz.invariant(
        beside.isSubset(of: ["input.archive", "store", "batch-\(runNumber)"]),
        "the batch run wrote outside its output folder: \(beside.sorted())")
}
