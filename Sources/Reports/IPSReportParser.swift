// IPSReportParser: the iOS 15+ / macOS 12+ `.ips` crash report (bug_type 309): a one-line JSON
// header, then a JSON body with usedImages, threads (frames as imageIndex + imageOffset),
// faultingThread, lastExceptionBacktrace, exception, asi and asiBacktraces. Unknown keys and
// duplicate keys are tolerated (the first wins). Frame address = image base + imageOffset; a
// frame without a numeric imageOffset (or not an object at all) is kept as a malformed frame.

import SymbolicateModel

enum IPSReportParser {
    /// One backtrace's frames. An object marked `"inline":true` (Xcode's, or ours from an earlier
    /// run) is an inlined level of the frame after it, not a frame: `frames` are the other
    /// elements, objects or not (what is no frame object becomes a malformed frame), and
    /// `inlineBefore[i]` the inline objects right before `frames[i]`.
    struct FrameList {
        var kind: Backtrace.Kind
        var thread: JSONNode?
        var frames: [JSONNode] = []
        var inlineBefore: [[JSONNode]] = []
        /// Every element, inline levels included, in order.
        var objects: [JSONNode] = []

        init(kind: Backtrace.Kind, thread: JSONNode?, elements: [JSONNode]) {
            self.kind = kind
            self.thread = thread
            var levels: [JSONNode] = []
            for node in elements {
                objects.append(node)
                if node.isObject, node["inline"]?.bool == true {
                    levels.append(node)
                } else {
                    frames.append(node)
                    inlineBefore.append(levels)
                    levels = []
                }
            }
        }
    }

    /// The frames of the body, one list per backtrace, in `CrashReport.backtraces` order: every
    /// thread, then lastExceptionBacktrace. The writer walks the same lists.
    static func frameLists(_ body: JSONNode) -> [FrameList] {
        var lists: [FrameList] = []
        for thread in body["threads"]?.elements ?? [] {
            lists.append(FrameList(kind: .thread, thread: thread, elements: thread["frames"]?.elements ?? []))
        }
        if let leb = body["lastExceptionBacktrace"], case .array = leb.kind {
            lists.append(FrameList(kind: .lastException, thread: nil, elements: leb.elements))
        }
        return lists
    }

    static func parseBody(_ bytes: [UInt8], bodyStart: Int) throws -> JSONNode {
        let body: JSONNode
        do {
            (body, _) = try JSONScanner.parse(bytes, from: bodyStart)
        } catch let error as SymbolicateError {
            throw SymbolicateError(.badInput, "truncated or malformed .ips body: \(error.message)")
        }
        guard body.isObject else { throw SymbolicateError(.badInput, ".ips body is not a JSON object") }
        return body
    }

    static func parse(_ bytes: [UInt8], header: String, bodyStart: Int) throws -> CrashReport {
        let body = try parseBody(bytes, bodyStart: bodyStart)
        var report = CrashReport(format: .ips, original: bytes, jsonHeader: header)
        for member in body.members {
            if let text = member.value.scalarText { report.fields.append(HeaderField(key: member.key, value: text)) }
        }
        if let cpu = body["cpuType"]?.string { report.arch = Arch(codeType: cpu) }
        report.images = (body["usedImages"]?.elements ?? []).map(image)
        let faulting = body["faultingThread"]?.int

        var backtraces: [Backtrace] = []
        for (index, list) in frameLists(body).enumerated() {
            var b = Backtrace(kind: list.kind)
            if let thread = list.thread {
                b.number = index
                b.name = thread["name"]?.string
                b.queue = thread["queue"]?.string
                b.crashed = thread["triggered"]?.bool ?? false || faulting == index
            }
            for (n, node) in list.frames.enumerated() {
                let isReturn = !(list.kind == .thread && n == 0)
                b.frames.append(frame(node, number: n, images: report.images, isReturnAddress: isReturn))
            }
            backtraces.append(b)
        }
        for text in body["asiBacktraces"]?.elements.compactMap(\.string) ?? [] {
            // Ranges into the string mean nothing in the document: the writer reads it again.
            var b = Backtrace(kind: .applicationSpecific)
            for var f in FrameLine.backtrace(Array(text.utf8)) {
                f.symbolColumn = nil
                f.levelLines = nil
                f.isReturnAddress = true
                b.frames.append(f)
            }
            backtraces.append(b)
        }
        ImageResolver(report.images).resolve(&backtraces)
        report.backtraces = backtraces
        report.applicationSpecificInformation = applicationSpecificText(body["asi"])
        return report
    }

    static func image(_ node: JSONNode) -> BinaryImage {
        let path = node["path"]?.string
        let name = node["name"]?.string ?? path.flatMap(PathParts.last) ?? "???"
        return BinaryImage(
            loadAddress: node["base"]?.uint64 ?? 0, size: node["size"]?.uint64, name: name,
            arch: node["arch"]?.string.map(Arch.init(rawValue:)),
            uuid: node["uuid"]?.string.flatMap { BuildID(reported: $0) },
            path: path, version: node["version"]?.string, isMarked: false)
    }

    static func frame(_ node: JSONNode, number: Int, images: [BinaryImage], isReturnAddress: Bool) -> Frame {
        let index = node["imageIndex"]?.int
        let offset = node["imageOffset"]?.uint64
        var imageIndex: Int? = nil
        var base: UInt64 = 0
        if let index, images.indices.contains(index) {
            imageIndex = index
            base = images[index].loadAddress
        }
        return Frame(
            number: number, imageName: imageIndex.map { images[$0].name }, imageIndex: imageIndex,
            address: offset.map { base &+ $0 } ?? 0,
            symbol: node["symbol"]?.string, symbolOffset: node["symbolLocation"]?.uint64,
            sourceFile: node["sourceFile"]?.string, sourceLine: node["sourceLine"]?.int,
            isReturnAddress: isReturnAddress, isMalformed: offset == nil)
    }

    /// `asi` is `{"Image": ["line", ...]}`; its strings joined one per line.
    static func applicationSpecificText(_ node: JSONNode?) -> String? {
        guard let node else { return nil }
        var lines: [String] = []
        for member in node.members {
            if let s = member.value.string { lines.append(s) }
            lines.append(contentsOf: member.value.elements.compactMap(\.string))
        }
        if let s = node.string { lines.append(s) }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }
}
