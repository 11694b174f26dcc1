// SampleTree: the rule every text sample tree shares (microstackshot resource reports, spindump,
// macOS `sample` call graphs). Each line is a node, its depth shown by the column its sample
// count starts in; a node with children (the next line is deeper) is a return address, a leaf is
// a pc. The parsers read their own line grammar into nodes; this turns a tree's nodes into a
// `.sampleTree` backtrace, frames in document order. The lines right after a node's line that
// repeat it in all but the symbol column are the inline levels an earlier symbolication wrote
// there (outermost first, as the writer puts them): they are levels of that node's frame
// (`Frame.levelLines`), which a writer that symbolicates the frame replaces, never frames.

import SymbolicateModel

/// One node line of a sample tree: the line (without its ending), the column its count starts
/// in, and its frame (whose `symbolColumn` lies on the line).
struct SampleTreeNode {
    var line: Range<Int>
    var indent: Int
    var frame: Frame
    /// A line of the tree that does not read as a sample (damaged): no frame, but it keeps its
    /// place, so the node before it is a pc or a return address as it would be with it intact.
    var isPlaceholder = false
}

enum SampleTree {
    /// A `.sampleTree` backtrace of `nodes` (lines of `bytes`), inline levels folded into their
    /// frame, numbered in document order. `isChain`: the nodes are one stack, outermost first (a
    /// heaviest stack), whose indentation does not nest, so only the last is a pc.
    static func backtrace(
        _ nodes: [SampleTreeNode], in bytes: [UInt8], number: Int, name: String, isChain: Bool = false
    ) -> Backtrace {
        let nodes = folded(nodes, bytes)
        var backtrace = Backtrace(kind: .sampleTree, number: number, name: name)
        backtrace.frames.reserveCapacity(nodes.count)
        for (n, node) in nodes.enumerated() where !node.isPlaceholder {
            let isLeaf = isChain ? n == nodes.count - 1 : n + 1 == nodes.count || nodes[n + 1].indent <= node.indent
            var frame = node.frame
            frame.number = backtrace.frames.count
            frame.isReturnAddress = !isLeaf
            backtrace.frames.append(frame)
        }
        return backtrace
    }

    /// `nodes` with the inline levels an earlier symbolication wrote folded into their frame:
    /// each node that `isLevel` of the node before it (or of that node's last level) leaves the
    /// list, and the frame's `levelLines` run from the end of its own line to the end of its last
    /// level's line.
    static func folded(_ nodes: [SampleTreeNode], _ bytes: [UInt8]) -> [SampleTreeNode] {
        var out: [SampleTreeNode] = []
        out.reserveCapacity(nodes.count)
        var previousLine: Range<Int>? = nil
        for node in nodes {
            defer { previousLine = node.line }
            if let head = out.last, let previousLine, isLevel(node, of: head, after: previousLine, bytes) {
                out[out.count - 1].frame.levelLines = head.line.upperBound..<node.line.upperBound
                continue
            }
            out.append(node)
        }
        return out
    }

    /// Whether `node` is an inline level written for `head`'s frame: its line comes right after
    /// `previous` (head's line or its last level's), and it repeats head's line but for the
    /// symbol column (the same indentation, marks and count before it, the same text after it)
    /// at the same address and image. A line that repeats head's whole line is a node of its own:
    /// a heaviest stack prints each frame of a recursion so.
    static func isLevel(_ node: SampleTreeNode, of head: SampleTreeNode, after previous: Range<Int>, _ bytes: [UInt8])
        -> Bool
    {
        guard let column = node.frame.symbolColumn, let headColumn = head.frame.symbolColumn,
            node.frame.address == head.frame.address, node.frame.imageName == head.frame.imageName,
            isLineEnding(bytes[previous.upperBound..<node.line.lowerBound])
        else { return false }
        return bytes[node.line.lowerBound..<column.lowerBound] == bytes[head.line.lowerBound..<headColumn.lowerBound]
            && bytes[column.upperBound..<node.line.upperBound] == bytes[headColumn.upperBound..<head.line.upperBound]
            && bytes[column] != bytes[headColumn]
    }

    /// One line ending: `\n`, `\r\n` or `\r`.
    private static func isLineEnding(_ gap: ArraySlice<UInt8>) -> Bool {
        gap.elementsEqual([0x0A]) || gap.elementsEqual([0x0D, 0x0A]) || gap.elementsEqual([0x0D])
    }

    /// Fills in what the report already says of a frame from its symbol text, unless it is `???`.
    static func describe(_ frame: inout Frame, symbol text: String) {
        guard text != "???" else { return }
        let described = FrameLine.symbolText(text)
        frame.symbol = described.symbol
        frame.symbolOffset = described.offset
        frame.sourceFile = described.file
        frame.sourceLine = described.line
    }
}
