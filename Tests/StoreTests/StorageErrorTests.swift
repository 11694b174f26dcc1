// An object-storage failure as symbolicate's error: the code the CLI's exit codes and the
// server's statuses read, and the message that still names bucket and key. The bucket store and
// batch's s3:// transfers both go through this one mapping.

import ObjectStorage
import Store
import SymbolicateModel
import Testing

struct StorageErrorTests {
    @Test(arguments: [
        (ObjectStorageError.Code.invalidLocation, SymbolicateError.Code.badInput),
        (.invalidConfiguration, .badInput),
        (.noSuchKey, .notFound),
        (.noSuchBucket, .notFound),
        (.libraryMissing, .unsupported),
        (.accessDenied, .io),
        (.unreachable, .unavailable),
        (.timeout, .unavailable),
        (.serverError, .unavailable),
        (.badResponse, .io),
    ])
    func codeFollowsTheStorageCode(storage: ObjectStorageError.Code, expected: SymbolicateError.Code) {
        let underlying = ObjectStorageError(storage, "it failed", operation: "GET", bucket: "b", key: "k/r.crash")
        let error = SymbolicateError(storage: underlying)
        #expect(error.code == expected)
        #expect(error.description == underlying.description)
        #expect(error.description.contains("s3://b/k/r.crash"))
    }
}
