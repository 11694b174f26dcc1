// Errors keep their cause, and are classified by it: a full disk is ENOSPC / EDQUOT or
// SQLITE_FULL underneath, whatever the message says; a SQLite failure carries its result code;
// an object-storage failure keeps the storage error.

import Foundation
import ObjectStorage
import SymbolicateModel
import Testing

@testable import BuildFiles
@testable import Store

@Suite struct ErrorCauseTests {
    @Test func diskFullIsDecidedFromTheNumberNotTheText() {
        let looksFull = SymbolicateError(.io, "SQLite error 13 (database or disk is full): \(Errno.noSpace)")
        #expect(!looksFull.isDiskFull)
        #expect(!Database.isDiskFull(looksFull))
        let full = SymbolicateError(.io, "cannot write", cause: Errno.noSpace)
        #expect(full.isDiskFull && full.errno == .noSpace)
        let wrapped = SymbolicateError(.io, "cannot add the build", cause: full)
        #expect(wrapped.isDiskFull)
        #expect(Database.error(rc: 13, message: "x", sql: nil, path: "/p").isDiskFull)
        #expect(!Database.error(rc: 11, message: "x", sql: nil, path: "/p").isDiskFull)
        #expect(Errno.permissionDenied.isPermissionDenied && Errno.noSuchFileOrDirectory.isNotFound)
    }

    @Test func aSQLiteFailureCarriesItsResultCode() throws {
        let folder = NSTemporaryDirectory() + "error-cause-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/not-a-database.sqlite"
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        do {
            let database = try Database(path: path, mode: .immutable)
            try database.exec("SELECT * FROM sqlite_master")
            Issue.record("a file of A's was read as a database")
        } catch let error as SymbolicateError {
            #expect(error.sqliteResult?.primary == 26, "\(error.debugDescription)")  // SQLITE_NOTADB
        }
    }

    @Test func aStorageFailureKeepsTheStorageError() {
        let storage = ObjectStorageError(.timeout, "GetObject timed out")
        let error = SymbolicateError(storage: storage)
        #expect(error.code == .unavailable)
        #expect((error.cause as? ObjectStorageError)?.code == .timeout)
    }
}
