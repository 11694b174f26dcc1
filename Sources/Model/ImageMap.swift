// ImageMap: the one rule for which image of a report a frame belongs to, used by the parsers,
// the writers, the symbolicator and the server's Sentry-shaped endpoint. The parser's answer
// (a frame's `imageIndex`, from the image name or an `.ips` index) comes first; otherwise the
// image whose range holds the address, and when ranges overlap (broken reports), the one loaded
// highest, then the one listed first. A lookup is a binary search over the images sorted by
// load address, so reports with thousands of frames and images stay linear.

public struct ImageMap: Sendable {
    /// What the range of an image without a size is.
    public enum UnsizedImages: Sendable {
        /// It holds no address: only its name or index can place a frame in it (Apple reports).
        case holdNothing
        /// It runs up to the next image's load address (Sentry modules without `image_size`).
        case reachNextImage
    }

    /// Overlapping images looked at below the highest one loaded at or before an address.
    static let maxOverlap = 8

    public let images: [BinaryImage]
    public let unsizedImages: UnsizedImages
    /// Indices into `images` that can hold an address, by load address; equal load addresses
    /// with the image listed first last, so that a walk down from the top meets it first.
    private let sorted: [Int]

    public init(_ images: [BinaryImage], unsizedImages: UnsizedImages = .holdNothing) {
        self.images = images
        self.unsizedImages = unsizedImages
        sorted = images.indices
            .filter { images[$0].size != nil || unsizedImages == .reachNextImage }
            .sorted { (images[$0].loadAddress, $1) < (images[$1].loadAddress, $0) }
    }

    /// The index of the image whose range holds `address`.
    public func index(containing address: UInt64) -> Int? {
        var k = sorted.partitioningIndex { images[$0].loadAddress > address } - 1
        var steps = 0
        while k >= 0, steps < Self.maxOverlap {
            let image = images[sorted[k]]
            if image.contains(address) || (image.size == nil && unsizedImages == .reachNextImage) { return sorted[k] }
            k -= 1
            steps += 1
        }
        return nil
    }

    /// The index of `frame`'s image: the parser's when it gave one, else by `address` (the
    /// frame's own, or the symbolicator's with pointer-authentication bits stripped).
    public func index(of frame: Frame, address: UInt64) -> Int? {
        Self.stated(frame, images) ?? index(containing: address)
    }

    /// The same without a map at hand: the map is built only when the parser gave no index.
    public static func index(of frame: Frame, in images: [BinaryImage]) -> Int? {
        stated(frame, images) ?? ImageMap(images).index(containing: frame.address)
    }

    private static func stated(_ frame: Frame, _ images: [BinaryImage]) -> Int? {
        guard let i = frame.imageIndex, images.indices.contains(i) else { return nil }
        return i
    }
}
