// A claim that the assembly of one chunked upload is running, kept beside the records in the blob
// store's backend (`assembling/sha1/<file sha1>.json`). The replica that starts an assembly writes
// it, rewrites it every `refreshInterval` while the assembly runs and removes it at the end; any
// replica asked about the same file while a claim is fresh answers `assembling` instead of
// starting a second assembly of its own. A claim not rewritten for `staleAfter` (its replica was
// killed) no longer counts, so the next try assembles the file again.

import Dispatch
import Foundation
import Store

struct AssemblyClaim: Codable {
    /// How often a running assembly rewrites its claim.
    static let refreshInterval: TimeInterval = 20
    /// A claim older than this is left by a replica that stopped.
    static let staleAfter: TimeInterval = 60
    /// A claim larger than this is not ours.
    static let maxBytes = 4096

    /// When it was written, in seconds since 1970.
    var written: Double

    static func path(_ checksum: String) -> String { "assembling/sha1/\(checksum).json" }

    /// Whether a replica claimed the assembly of `checksum` less than `staleAfter` ago.
    static func isFresh(_ checksum: String, in backend: any BlobBackend, now: Date = Date()) throws -> Bool {
        guard let bytes = try backend.read(path(checksum), maxBytes: maxBytes),
            let claim = try? JSONDecoder().decode(AssemblyClaim.self, from: Data(bytes))
        else { return false }
        return now.timeIntervalSince1970 - claim.written < staleAfter
    }

    /// Claims the assembly of `checksum` until `release` is called, rewriting the claim meanwhile.
    /// A claim that cannot be written only costs other replicas a duplicate assembly.
    static func hold(_ checksum: String, in backend: any BlobBackend) -> DispatchSourceTimer {
        let write = {
            let claim = AssemblyClaim(written: Date().timeIntervalSince1970)
            guard let bytes = try? JSONEncoder().encode(claim) else { return }
            try? backend.write(Array(bytes), to: path(checksum))
        }
        write()
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        timer.schedule(deadline: .now() + refreshInterval, repeating: refreshInterval)
        timer.setEventHandler(handler: write)
        timer.resume()
        return timer
    }

    /// Ends a claim made by `hold`.
    static func release(_ checksum: String, _ timer: DispatchSourceTimer, in backend: any BlobBackend) {
        timer.cancel()
        try? backend.delete(path(checksum))
    }
}
