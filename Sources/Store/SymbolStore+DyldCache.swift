// Importing a dyld shared cache: every image of the main file given (its subcaches and
// `.symbols` file are found beside it) becomes a symbol-table-only build keyed by its own
// UUID, imported one at a time so that memory holds one image's symbols whatever the cache's
// size. An image already in the store with symbols at least as good is skipped before its
// symbols are read, so importing the same cache again writes nothing; a damaged image is
// listed as a failure and the others still go in. Subcache files met while walking a folder
// are part of their main file's import and are passed over.

import ObjectFiles
import SymbolicateModel

extension SymbolStore {
    /// Imports the cache whose main file is `path`; `explicit` is false for a file met while
    /// walking a folder, where a subcache is passed over instead of refused.
    func importDyldCache(_ path: String, prefix: [UInt8], explicit: Bool, run: inout ImportRun) {
        if !DyldCache.listsImages(prefix: prefix), !explicit { return }
        let cache: DyldCache
        do {
            cache = try DyldCache(path: path)
        } catch {
            run.fail(path, error)
            return
        }
        for index in cache.images.indices {
            let entry = cache.images[index]
            do {
                let image = try cache.image(at: index)
                run.record(image.info, source: path) {
                    try importBuild(image.info, source: path, mode: .new) {
                        var pending = try prepare(try image.symbolTable(), source: path)
                        pending.origin = BuildOrigin(cache, imagePath: entry.path)
                        return pending
                    }
                }
            } catch {
                run.handled += 1
                run.fail("\(path) (\(entry.path))", error)
            }
            run.report(item: entry.path)
        }
    }
}

extension BuildOrigin {
    /// The origin of the image at `imagePath` in `cache`.
    init(_ cache: DyldCache, imagePath: String) {
        self.init(dyldCacheUUID: cache.uuid.uuidString, osVersion: cache.osVersion, imagePath: imagePath)
    }
}
