// An object-storage failure as symbolicate's error, for the bucket store and for batch's s3://
// inputs and outputs alike: the code the CLI's exit codes and the server's statuses read (a bad
// location or configuration is bad input, a missing key or bucket is not found, no libcurl is
// unsupported, an endpoint that does not answer, times out or fails on its side (5xx) is
// unavailable, the rest is I/O), and the message that names bucket and key.

import ObjectStorage
import SymbolicateModel

extension SymbolicateError {
    public init(
        storage error: ObjectStorageError, function: String = #function, file: String = #fileID, line: Int = #line
    ) {
        let code: SymbolicateError.Code
        switch error.code {
        case .invalidLocation, .invalidConfiguration: code = .badInput
        case .noSuchKey, .noSuchBucket: code = .notFound
        case .libraryMissing: code = .unsupported
        case .unreachable, .timeout, .serverError: code = .unavailable
        default: code = .io
        }
        self.init(code, error.description, cause: error, function: function, file: file, line: line)
    }
}
