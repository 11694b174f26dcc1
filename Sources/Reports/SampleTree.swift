// SampleTree: the rule every text sample tree shares (microstackshot resource reports, macOS
// `sample` call graphs). Each line is a node, its depth shown by the column its sample count
// starts in; a node with children (the next line is deeper) is a return address, a leaf is a
// pc. The parsers read their own line grammar into nodes; this turns a tree's nodes into a
// `.sampleTree` backtrace, frames in document order.

import SymbolicateModel

/// One node line of a sample tree: the column its count starts in, and its frame.
struct SampleTreeNode {
    var indent: Int
    var frame: Frame
}

enum SampleTree {
    /// A `.sampleTree` backtrace of `nodes`, numbered in document order. `isChain`: the nodes are
    /// one stack, outermost first (a heaviest stack), whose indentation does not nest, so only
    /// the last is a pc.
    static func backtrace(_ nodes: [SampleTreeNode], number: Int, name: String, isChain: Bool = false) -> Backtrace {
        var backtrace = Backtrace(kind: .sampleTree, number: number, name: name)
        backtrace.frames.reserveCapacity(nodes.count)
        for (n, node) in nodes.enumerated() {
            let isLeaf = isChain ? n == nodes.count - 1 : n + 1 == nodes.count || nodes[n + 1].indent <= node.indent
            var frame = node.frame
            frame.number = n
            frame.isReturnAddress = !isLeaf
            backtrace.frames.append(frame)
        }
        return backtrace
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
