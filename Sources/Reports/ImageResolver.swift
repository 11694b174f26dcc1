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
        byName.reserveCapacity(images.count)
        byFile.reserveCapacity(images.count)
        for (i, image) in images.enumerated() {
            byName[image.name, default: []].append(i)
            if let path = image.path { byFile[PathParts.name(path), default: []].append(i) }
        }
    }

    /// The image `name` names (of several so named, the one whose range holds `address`), else
    /// the image that holds `address`.
    func index(named name: String?, address: UInt64) -> Int? {
        pick(name.flatMap(images(named:)), address: address)
    }

    /// The images listed under `name` (blanks around it ignored), else those whose path ends in it.
    private func images(named name: String) -> [Int]? {
        let trimmed = name.trimmingCharacters(in: " \t")
        return byName[trimmed] ?? byFile[trimmed]
    }

    /// Of the images a frame's name names (nil: none), the one for `address`.
    private func pick(_ named: [Int]?, address: UInt64) -> Int? {
        guard let named else { return map.index(containing: address) }
        guard named.count > 1, let holder = map.index(containing: address), named.contains(holder) else {
            return named[0]
        }
        return holder
    }

    /// `images(named:)` for frame after frame: a report's frames name a few images over and
    /// over, and comparing with the names asked last (the same String when the parser shared
    /// it, `FrameLine.Names`) costs less than trimming and hashing each again.
    private struct NameMemo {
        static let size = 8
        private var names: [String] = []
        private var answers: [[Int]?] = []
        private var next = 0

        /// The entry answered last: consecutive frames mostly name one image.
        private var last = 0

        mutating func images(named name: String, in resolver: ImageResolver) -> [Int]? {
            if last < names.count, names[last] == name { return answers[last] }
            for k in names.indices where names[k] == name {
                last = k
                return answers[k]
            }
            let named = resolver.images(named: name)
            if names.count < Self.size {
                last = names.count
                names.append(name)
                answers.append(named)
            } else {
                last = next
                names[next] = name
                answers[next] = named
                next = (next + 1) % Self.size
            }
            return named
        }
    }

    /// Names each image as the frames name it, where they name it by its path's last component
    /// and no image is listed under that name. macOS 12 text reports list an image under its
    /// bundle identifier (`jp.example.Kit (1.0) <uuid> /…/Kit.framework/Versions/A/Kit`) but call
    /// it `Kit` in frame lines, as the `.ips` of the same crash does; the image is then `Kit`
    /// whichever form the crash arrives in. Earlier macOS reports use the bundle identifier in
    /// both places, and keep it. Call before `resolve`: a frame goes to the same image either way.
    /// True when an image was renamed: this resolver, made before, no longer lists it so.
    @discardableResult
    func nameAsFramesDo(_ images: inout [BinaryImage], backtraces: [Backtrace]) -> Bool {
        var names: [Int: String] = [:]
        // The last names found to name no image by its path alone: the frames after them mostly
        // say them again.
        var skipped: [String] = []
        var lastSkipped: String? = nil
        for backtrace in backtraces {
            for frame in backtrace.frames where frame.imageIndex == nil {
                guard let raw = frame.imageName, raw != lastSkipped else { continue }
                if skipped.contains(raw) {
                    lastSkipped = raw
                    continue
                }
                let stated = raw.trimmingCharacters(in: " \t")
                guard !stated.isEmpty, byName[stated] == nil, byFile[stated] != nil else {
                    if skipped.count == NameMemo.size { skipped.removeFirst() }
                    skipped.append(raw)
                    lastSkipped = raw
                    continue
                }
                guard let i = index(named: stated, address: frame.address) else { continue }
                names[i] = stated
            }
        }
        for (i, name) in names { images[i].name = name }
        return !names.isEmpty
    }

    /// Fills in `imageIndex` (and a missing image name) for every frame.
    func resolve(_ backtraces: inout [Backtrace]) {
        var memo = NameMemo()
        for b in backtraces.indices {
            for f in backtraces[b].frames.indices where backtraces[b].frames[f].imageIndex == nil {
                let name = backtraces[b].frames[f].imageName
                let named = name.flatMap { memo.images(named: $0, in: self) }
                if let i = pick(named, address: backtraces[b].frames[f].address) {
                    backtraces[b].frames[f].imageIndex = i
                    if name == nil { backtraces[b].frames[f].imageName = images[i].name }
                }
            }
        }
    }
}
