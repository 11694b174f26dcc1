// A local file the client cannot create keeps the system's error number, so a caller tells "not
// found" or "disk full" from the number (SymbolicateError's `errno`), never from the words. The
// file is opened before any request is sent, so no server is needed: the endpoint is a port
// nothing listens on.

import Foundation
import ObjectStorage
import SymbolicateModel
import Testing

@Suite struct LocalFileErrorTests {
    @Test func aDownloadIntoAMissingFolderKeepsItsErrno() throws {
        let environment = [
            "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret",
            "AWS_ENDPOINT_URL": "http://127.0.0.1:9", "AWS_REGION": "us-east-1",
        ]
        let configuration = try S3Configuration.fromEnvironment { environment[$0] }
        let client = try S3Client(configuration: configuration)
        let folder = NSTemporaryDirectory() + "no-such-folder-\(UUID().uuidString)"
        do {
            try client.downloadObject(bucket: "symbols", key: "k", to: folder + "/file")
            Issue.record("the download into a missing folder succeeded")
        } catch {
            #expect(error.code == .io)
            #expect(error.errno == .noSuchFileOrDirectory, "\(error)")
            let wrapped = SymbolicateError(.io, "fetching a build failed", cause: error)
            #expect(wrapped.errno?.isNotFound == true)
        }
    }
}
