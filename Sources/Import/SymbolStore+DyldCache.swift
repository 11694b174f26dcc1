// Importing a dyld shared cache: every image of the main file given (its subcaches and
// `.symbols` file are found beside it) becomes a symbol-table-only build keyed by its own
// UUID, imported one at a time so that memory holds one image's symbols whatever the cache's
// size. An image already in the store with symbols at least as good is skipped before its
// symbols are read, so importing the same cache again writes nothing; a damaged image is
// listed as a failure and the others still go in. Subcache files met while walking a folder
// are part of their main file's import and are passed over.

import Dispatch
import ObjectFiles
import Store
import SymbolicateModel
import SystemSupport

extension SymbolStore {
    /// Imports the cache whose main file is `path`; `explicit` is false for a file met while
    /// walking a folder, where a subcache is passed over instead of refused. Images go through
    /// in groups of one per core: each group's build files are written at once, then published in
    /// the cache's order, so memory holds a group's symbols whatever the cache's size.
    func importDyldCache(_ path: String, prefix: [UInt8], explicit: Bool, run: inout ImportRun) {
        if !DyldCache.listsImages(prefix: prefix), !explicit { return }
        let cache: DyldCache
        do {
            cache = try DyldCache(path: path)
        } catch {
            run.fail(path, error)
            return
        }
        let width = max(1, min(ProcessorBudget.defaultThreads, 8))
        var start = 0
        while start < cache.images.count {
            let end = min(start + width, cache.images.count)
            // Opened in order; those the store already has at least as good are done here.
            var jobs: [(path: String, image: DyldCacheImage)] = []
            for index in start..<end {
                let entry = cache.images[index]
                do {
                    let image = try cache.image(at: index)
                    if try hasBuild(image.info) {
                        run.record(image.info, source: path) { .alreadyPresent }
                        run.report(item: entry.path)
                    } else {
                        jobs.append((entry.path, image))
                    }
                } catch {
                    run.handled += 1
                    run.fail("\(path) (\(entry.path))", error)
                    run.report(item: entry.path)
                }
            }
            // Their build files, written at once.
            let prepared = UnsafeMutableBufferPointer<Result<PendingBuild, any Error>?>.allocate(capacity: jobs.count)
            prepared.initialize(repeating: nil)
            defer {
                _ = prepared.deinitialize()
                prepared.deallocate()
            }
            // Unchecked: each iteration reads its own image (MachOFile over the shared, read-only
            // mapping) and writes its own slot; nothing else touches them until all are done.
            nonisolated(unsafe) let slots = prepared
            nonisolated(unsafe) let work = jobs
            DispatchQueue.concurrentPerform(iterations: work.count) { j in
                // Each iteration writes its own slot only.
                slots[j] = Result {
                    var pending = try prepare(try work[j].image.symbolTable(), source: path)
                    pending.origin = BuildOrigin(cache, imagePath: work[j].path)
                    return pending
                }
            }
            // Published in the cache's order.
            for (j, job) in jobs.enumerated() {
                let result = prepared[j]
                prepared[j] = nil
                run.record(job.image.info, source: path) {
                    guard let result else { throw SymbolicateError(.internal, "an image was not prepared") }
                    return try commit(try result.get(), mode: .new)
                }
                run.report(item: job.path)
            }
            start = end
        }
    }
}

extension BuildOrigin {
    /// The origin of the image at `imagePath` in `cache`.
    init(_ cache: DyldCache, imagePath: String) {
        self.init(dyldCacheUUID: cache.uuid.uuidString, osVersion: cache.osVersion, imagePath: imagePath)
    }
}
