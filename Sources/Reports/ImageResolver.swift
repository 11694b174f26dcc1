// ImageResolver: finds the image a frame belongs to, by the image name the frame states (or
// the last component of an image's path: macOS 12 names images by bundle id but frames by
// file name; of several images so named, the one that holds the frame's address), else by
// address under ImageMap's rule. Text reports first rename such images as their frames name
// them (`nameAsFramesDo`). The name lookup is O(1) and the address lookup O(log n), so reports
// with thousands of frames and images stay linear.

import SymbolicateModel

struct ImageResolver {
    /// Images by name, and by the file name of their path, in report order: several images may
    /// share one (a plug-in and a framework both called `CoreAudio`).
    private var byName: [String: [Int]] = [:]
    private var byFile: [String: [Int]] = [:]
    private let map: ImageMap
    private var images: [BinaryImage] { map.images }

    init(_ images: [BinaryImage]) {
        self.map = ImageMap(images)
        for (i, image) in images.enumerated() {
            byName[image.name, default: []].append(i)
            if let path = image.path { byFile[PathParts.name(path), default: []].append(i) }
        }
    }

    /// The image `name` names (of several so named, the one whose range holds `address`), else
    /// the image that holds `address`.
    func index(named name: String?, address: UInt64) -> Int? {
        if let name {
            let trimmed = name.trimmingCharacters(in: " \t")
            if let named = byName[trimmed] ?? byFile[trimmed] {
                guard named.count > 1, let holder = map.index(containing: address), named.contains(holder) else {
                    return named[0]
                }
                return holder
            }
        }
        return map.index(containing: address)
    }

    /// Names each image as the frames name it, where they name it by its path's last component
    /// and no image is listed under that name. macOS 12 text reports list an image under its
    /// bundle identifier (`jp.example.Kit (1.0) <uuid> /…/Kit.framework/Versions/A/Kit`) but call
    /// it `Kit` in frame lines, as the `.ips` of the same crash does; the image is then `Kit`
    /// whichever form the crash arrives in. Earlier macOS reports use the bundle identifier in
    /// both places, and keep it. Call before `resolve`: a frame goes to the same image either way.
    static func nameAsFramesDo(_ images: inout [BinaryImage], backtraces: [Backtrace]) {
        let resolver = ImageResolver(images)
        var names: [Int: String] = [:]
        for backtrace in backtraces {
            for frame in backtrace.frames where frame.imageIndex == nil {
                guard let stated = frame.imageName?.trimmingCharacters(in: " \t"), !stated.isEmpty,
                    resolver.byName[stated] == nil,
                    resolver.byFile[stated] != nil, let i = resolver.index(named: stated, address: frame.address)
                else { continue }
                names[i] = stated
            }
        }
        for (i, name) in names { images[i].name = name }
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
