// ImageResolver: finds the image a frame belongs to, by the image name the frame states (or
// the last component of an image's path: macOS 12 names images by bundle id but frames by
// file name), else by address under ImageMap's rule. The name lookup is O(1) and the address
// lookup O(log n), so reports with thousands of frames and images stay linear.

import SymbolicateModel

struct ImageResolver {
    private var byName: [String: Int] = [:]
    private let map: ImageMap
    private var images: [BinaryImage] { map.images }

    init(_ images: [BinaryImage]) {
        self.map = ImageMap(images)
        for (i, image) in images.enumerated() {
            if byName[image.name] == nil { byName[image.name] = i }
        }
        for (i, image) in images.enumerated() {
            if let last = image.path.map(Self.lastComponent), byName[last] == nil {
                byName[last] = i
            }
        }
    }

    static func lastComponent(_ path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

    func index(named name: String?, address: UInt64) -> Int? {
        if let name {
            let trimmed = name.trimmingCharacters(in: " \t")
            if let i = byName[trimmed] { return i }
        }
        return map.index(containing: address)
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
