// ImageResolver: finds the image a frame belongs to, by the image name the frame states (or
// the last component of an image's path: macOS 12 names images by bundle id but frames by
// file name), else by address. Both lookups are O(log n) or O(1) so reports with thousands of
// frames and images stay linear.

import SymbolicateModel

struct ImageResolver {
    private var byName: [String: Int] = [:]
    /// Image indices with a known size, sorted by load address.
    private var sorted: [Int] = []
    private let images: [BinaryImage]

    init(_ images: [BinaryImage]) {
        self.images = images
        for (i, image) in images.enumerated() {
            if byName[image.name] == nil { byName[image.name] = i }
        }
        for (i, image) in images.enumerated() {
            if let last = image.path.map(Self.lastComponent), byName[last] == nil {
                byName[last] = i
            }
        }
        sorted = images.indices.filter { images[$0].size != nil }.sorted { images[$0].loadAddress < images[$1].loadAddress }
    }

    static func lastComponent(_ path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

    /// The index of the image containing `address`.
    func index(containing address: UInt64) -> Int? {
        var lo = 0
        var hi = sorted.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if images[sorted[mid]].loadAddress <= address { lo = mid + 1 } else { hi = mid }
        }
        // Images may overlap in broken reports: look back a few entries.
        var k = lo - 1
        var steps = 0
        while k >= 0, steps < 8 {
            if images[sorted[k]].contains(address) { return sorted[k] }
            k -= 1
            steps += 1
        }
        return nil
    }

    func index(named name: String?, address: UInt64) -> Int? {
        if let name {
            let trimmed = name.trimmingCharacters(in: " \t")
            if let i = byName[trimmed] { return i }
        }
        return index(containing: address)
    }

    /// Fills in `imageIndex` (and a missing image name) for every frame.
    func resolve(_ backtraces: inout [Backtrace]) {
        for b in backtraces.indices {
            for f in backtraces[b].frames.indices {
                let frame = backtraces[b].frames[f]
                guard frame.imageIndex == nil else { continue }
                if let i = index(named: frame.imageName, address: frame.address) {
                    backtraces[b].frames[f].imageIndex = i
                    if frame.imageName == nil { backtraces[b].frames[f].imageName = images[i].name }
                }
            }
        }
    }
}
