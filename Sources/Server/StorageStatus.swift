// The statuses that say what happened to storage, where the error's code alone would mislead: a
// bucket that does not exist is the service's storage missing, not the resource the client asked
// for (503, not 404 not_found); credentials the bucket refuses are the operator's to fix (500
// naming authentication, never a 4xx the client would take as its own fault); a full disk is
// 507 with Retry-After. Decided from the cause underneath (ObjectStorageError's code, ENOSPC /
// EDQUOT / SQLITE_FULL), never from the message. `/readyz` answers 503 for a while after a
// write failed on a full disk (`DiskFullMark`), so a balancer stops sending writes here.

import Dispatch
import Foundation
import ObjectStorage
import SymbolicateModel

enum StorageStatus {
    /// Seconds a client is asked to wait after a full disk (space may be freed by the retention
    /// sweep or an operator).
    static let diskFullRetryAfter = 60

    /// The answer for a storage failure, or nil for an error the usual mapping handles.
    static func answer(_ error: SymbolicateError) -> HTTPError? {
        if error.isDiskFull {
            return HTTPError(
                507, "insufficient_storage", "the server's disk is full: \(error.description)",
                headers: [("Retry-After", String(diskFullRetryAfter))])
        }
        let storage = (error.cause as? ObjectStorageError) ?? error.firstCause(ObjectStorageError.self)
        guard let storage else { return nil }
        switch storage.code {
        case .noSuchBucket:
            return HTTPError(
                503, "storage_unavailable", "the server's storage is missing: \(storage.description)",
                headers: [("Retry-After", String(HTTPError.retryAfterSeconds))])
        case .invalidCredentials, .accessDenied:
            return HTTPError(
                500, "storage_authentication",
                "the server's storage refused its credentials (authentication failed): \(storage.description)")
        default:
            return nil
        }
    }
}

/// When a write last failed on a full disk; `/readyz` is 503 for `seconds` after it.
final class DiskFullMark: Sendable {
    private let last = Locked<UInt64?>(nil)
    let seconds: Double

    init(seconds: Double = 30) { self.seconds = seconds }

    /// Notes the error when it is a full disk.
    func note(_ error: any Error) {
        guard let error = error as? SymbolicateError, error.isDiskFull else { return }
        last.withLock { $0 = DispatchTime.now().uptimeNanoseconds }
    }

    /// Why the server is not ready for writes, or nil.
    var problem: String? {
        guard let at = last.withLock({ $0 }) else { return nil }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - at) / 1e9
        guard elapsed < seconds else { return nil }
        return "a write failed on a full disk \(Int(elapsed)) s ago"
    }
}
