// dyld shared caches inside a .zip or .tar, as users upload them: a split cache is several
// files, so every cache member is spooled to a temporary file while the archive is read, and
// once it has been read each main file is opened with its subcaches found among the other
// members by name (`X.01`, `X.symbols` beside `X`). Its images then join the archive's harvest
// like any object file's slices, published only when the whole archive has been read.

import Archives
import Foundation
import ObjectFiles
import Store
import SymbolicateModel

extension SymbolStore {
    /// Reads the images of every main cache file the archive held, then lets the spooled files go.
    func harvestCaches(into harvest: inout ArchiveHarvest, run: inout ImportRun) {
        let members = harvest.cacheMembers
        harvest.cacheMembers = [:]
        for (name, spooled) in members.sorted(by: { $0.key < $1.key }) {
            guard let prefix = try? SymbolStore.readPrefix(spooled.file.path), DyldCache.listsImages(prefix: prefix)
            else { continue }
            let cache: DyldCache
            do {
                cache = try DyldCache(file: spooled.file.path, name: spooled.member) { suffix in
                    members[name + suffix]?.file.path
                }
            } catch {
                harvest.failures.append((spooled.member, error))
                continue
            }
            for index in cache.images.indices {
                let member = "\(spooled.member) (\(cache.images[index].path))"
                do {
                    let image = try cache.image(at: index)
                    let imagePath = cache.images[index].path
                    harvestBuild(image.info, member: spooled.member, into: &harvest) {
                        var pending = try prepare(try image.symbolTable(), source: spooled.member)
                        pending.origin = BuildOrigin(cache, imagePath: imagePath)
                        return pending
                    }
                } catch {
                    harvest.slices += 1
                    harvest.failures.append((member, error))
                }
                run.report(item: member)
            }
        }
    }
}
