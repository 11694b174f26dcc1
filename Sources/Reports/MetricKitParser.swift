// MetricKitParser: MetricKit documents as crash reports. Three shapes arrive: an
// `MXDiagnosticPayload.jsonRepresentation()` (`crashDiagnostics`, `hangDiagnostics`,
// `cpuExceptionDiagnostics`, `diskWriteExceptionDiagnostics`, `appLaunchDiagnostics`), an array
// of them, and a bare `MXCallStackTree` (`callStacks` + `callStackPerThread`). Every call stack
// becomes one backtrace; its frames are the nodes of `callStackRootFrames` and their nested
// `subFrames`, in document order. The `inlineFrames` of a node (App Store Connect's, or an
// earlier run's) are levels of that node, never frames: a document symbolicated again has the
// frames it had.
//
// Address rules. With `callStackPerThread: true` a root is a thread's innermost frame (its pc,
// looked up as is) and `subFrames` are its callers (return addresses). With `false` (samples
// aggregated over time) roots are the outermost frames and `subFrames` their callees: leaves are
// pcs, inner nodes return addresses. The image loads at `address - offsetIntoBinaryTextSegment`,
// except in payloads whose `offsetIntoBinaryTextSegment` holds the load address itself (iOS 14):
// an offset larger than the load address it implies can only be that, and is taken as the load
// address. A frame with no `address` is looked up at its offset.
//
// The document is read into a JSONTape and walked with a heap stack, so a stack of any depth
// is read without recursion.

import SymbolicateModel

public enum MetricKitParser {
    /// The top-level keys of an MXDiagnosticPayload that hold diagnostics, and what each is.
    static let diagnosticKinds: [(key: String, name: String)] = [
        ("crashDiagnostics", "crash"), ("hangDiagnostics", "hang"), ("cpuExceptionDiagnostics", "cpu exception"),
        ("diskWriteExceptionDiagnostics", "disk write exception"), ("appLaunchDiagnostics", "app launch"),
    ]

    /// Where the pieces of a MetricKit document sit on its tape, in document order.
    struct Layout {
        struct Node {
            /// The frame object.
            var entry: Int
            /// Nesting depth in its call stack (roots are 0).
            var depth: Int
            var isReturnAddress: Bool
        }

        struct Stack {
            var entry: Int
            var threadAttributed: Bool
            var nodes: [Node]
        }

        struct Diagnostic {
            /// `crashDiagnostics`, ... or `callStackTree` for a bare tree.
            var key: String
            var name: String
            /// Index within its key's array.
            var index: Int
            /// The diagnostic object (the tree itself for a bare tree).
            var entry: Int
            var metaData: Int?
            var perThread: Bool
            var stacks: [Stack]
        }

        var tape: JSONTape
        /// Payload objects (the root, or each element of a root array).
        var payloads: [Int]
        var diagnostics: [Diagnostic]
    }

    /// True when the bytes from `start` (a `{` or `[`) look like a MetricKit document: cheap,
    /// key names only; `parse` decides.
    static func mayBeMetricKit(_ bytes: [UInt8]) -> Bool {
        FormatSniffer.contains(bytes, "\"callStackRootFrames\"", limit: .max)
            || FormatSniffer.contains(bytes, "\"callStacks\"", limit: .max)
            || diagnosticKinds.contains { FormatSniffer.contains(bytes, "\"\($0.key)\"") }
    }

    /// The layout of the document at `start`, or nil when it is JSON of another kind. Throws for
    /// malformed JSON.
    static func layout(_ bytes: [UInt8], from start: Int) throws -> Layout? {
        let (tape, _) = try JSONTape.parse(bytes, from: start)
        var payloads: [Int] = []
        switch tape.kind(0) {
        case .object: payloads = [0]
        case .array: payloads = tape.children(0).filter { tape.kind($0) == .object }
        default: return nil
        }
        var diagnostics: [Layout.Diagnostic] = []
        for payload in payloads {
            if tape.member(payload, "callStacks") != nil {
                if let d = diagnostic(
                    tape, key: "callStackTree", name: "call stack tree", index: 0, entry: payload, tree: payload)
                {
                    diagnostics.append(d)
                }
                continue
            }
            for (key, name) in diagnosticKinds {
                guard let list = tape.member(payload, key), tape.kind(list) == .array else { continue }
                for (i, entry) in tape.children(list).enumerated() where tape.kind(entry) == .object {
                    let tree = tape.member(entry, "callStackTree")
                    if let d = diagnostic(tape, key: key, name: name, index: i, entry: entry, tree: tree) {
                        diagnostics.append(d)
                    }
                }
            }
        }
        let known = payloads.contains { p in
            tape.member(p, "callStacks") != nil || diagnosticKinds.contains { tape.member(p, $0.key) != nil }
        }
        guard known else { return nil }
        return Layout(tape: tape, payloads: payloads, diagnostics: diagnostics)
    }

    private static func diagnostic(
        _ tape: JSONTape, key: String, name: String, index: Int, entry: Int, tree: Int?
    ) -> Layout.Diagnostic? {
        var d = Layout.Diagnostic(
            key: key, name: name, index: index, entry: entry, metaData: tape.member(entry, "diagnosticMetaData"),
            perThread: true, stacks: [])
        guard let tree, tape.kind(tree) == .object else { return d }
        d.perThread = tape.bool(tape.member(tree, "callStackPerThread")) ?? true
        guard let stacks = tape.member(tree, "callStacks") else { return d }
        for stack in tape.children(stacks) where tape.kind(stack) == .object {
            let attributed = tape.bool(tape.member(stack, "threadAttributed")) ?? false
            d.stacks.append(
                Layout.Stack(
                    entry: stack, threadAttributed: attributed, nodes: nodes(tape, stack, perThread: d.perThread)))
        }
        return d
    }

    /// The frames of one call stack in document order (depth first, a node before its
    /// `subFrames`), with their depth and address rule; a loop over a heap stack.
    private static func nodes(_ tape: JSONTape, _ stack: Int, perThread: Bool) -> [Layout.Node] {
        guard let roots = tape.member(stack, "callStackRootFrames") else { return [] }
        var out: [Layout.Node] = []
        var pending: [(entry: Int, depth: Int)] = tape.children(roots).reversed().map { ($0, 0) }
        while let (entry, depth) = pending.popLast() {
            guard tape.kind(entry) == .object else { continue }
            let children = tape.member(entry, "subFrames").map { tape.children($0) } ?? []
            let hasCallees = children.contains { tape.kind($0) == .object }
            // Per thread: only the root is a pc. Aggregated: only the leaves are.
            let isReturnAddress = perThread ? depth > 0 : hasCallees
            out.append(Layout.Node(entry: entry, depth: depth, isReturnAddress: isReturnAddress))
            for child in children.reversed() { pending.append((child, depth + 1)) }
        }
        return out
    }

    // MARK: The report

    /// Parses a MetricKit document starting at `start`; nil when the JSON is of another kind.
    static func parse(_ bytes: [UInt8], from start: Int) throws -> CrashReport? {
        guard let layout = try layout(bytes, from: start) else { return nil }
        let tape = layout.tape
        var report = CrashReport(format: .metricKit, original: bytes)
        var imageIndex: [ImageKey: Int] = [:]
        for payload in layout.payloads {
            for key in ["timeStampBegin", "timeStampEnd"] {
                if let value = tape.scalarText(tape.member(payload, key)) {
                    report.fields.append(HeaderField(key: key, value: value))
                }
            }
        }
        for diagnostic in layout.diagnostics {
            report.diagnostics.append("\(diagnostic.key)[\(diagnostic.index)]")
            report.fields += fields(of: diagnostic, tape)
            if report.arch == nil, let meta = diagnostic.metaData,
                let arch = tape.string(tape.member(meta, "platformArchitecture")), !arch.isEmpty
            {
                report.arch = Arch(arch)
            }
            for (s, stack) in diagnostic.stacks.enumerated() {
                var backtrace = Backtrace(
                    kind: diagnostic.perThread ? .thread : .sampleTree, number: s,
                    name: "\(diagnostic.key)[\(diagnostic.index)]", crashed: stack.threadAttributed)
                backtrace.frames.reserveCapacity(stack.nodes.count)
                for (n, node) in stack.nodes.enumerated() {
                    backtrace.frames.append(
                        frame(node, number: n, tape: tape, images: &report.images, index: &imageIndex))
                }
                report.backtraces.append(backtrace)
            }
        }
        return report
    }

    private struct ImageKey: Hashable {
        var uuid: BuildID?
        var name: String?
        var load: UInt64
    }

    /// One frame node as a Frame, its image added to `images` once per (UUID, name, load address).
    private static func frame(
        _ node: Layout.Node, number: Int, tape: JSONTape, images: inout [BinaryImage], index: inout [ImageKey: Int]
    ) -> Frame {
        let e = node.entry
        let name = tape.string(tape.member(e, "binaryName"))
        let uuid = tape.string(tape.member(e, "binaryUUID")).flatMap { BuildID(reported: $0) }
        let offset = tape.uint64(tape.member(e, "offsetIntoBinaryTextSegment"))
        let stated = tape.uint64(tape.member(e, "address"))
        var frame = Frame(
            number: number, imageName: name, address: stated ?? offset ?? 0, isReturnAddress: node.isReturnAddress)
        guard let offset else { return frame }
        let load = loadAddress(address: stated, offset: offset)
        let key = ImageKey(uuid: uuid, name: name, load: load)
        if let known = index[key] {
            frame.imageIndex = known
        } else {
            index[key] = images.count
            frame.imageIndex = images.count
            images.append(BinaryImage(loadAddress: load, name: name ?? uuid?.uuidString ?? "???", uuid: uuid))
        }
        return frame
    }

    /// The image's load address for a frame at `address`, `offset` into the image's text. An
    /// offset at least as large as the load address it implies is the load address itself (the
    /// iOS 14 payloads); an offset past the address leaves the frame below its image (malformed).
    static func loadAddress(address: UInt64?, offset: UInt64) -> UInt64 {
        guard let address else { return 0 }
        guard offset <= address else { return offset }
        let implied = address - offset
        return implied < offset ? offset : implied
    }

    /// Header fields of a diagnostic: what it is, and the scalars of its `diagnosticMetaData`
    /// (plus `Exception Type` and `Version` in the text report's words, for summaries).
    static func fields(of d: Layout.Diagnostic, _ tape: JSONTape) -> [HeaderField] {
        var out = [HeaderField(key: "Diagnostic", value: "\(d.name) (\(d.key)[\(d.index)])")]
        guard let meta = d.metaData else { return out }
        var values: [String: String] = [:]
        for member in tape.children(meta) {
            guard let key = tape.entries[member].key, let value = tape.scalarText(member) else { continue }
            out.append(HeaderField(key: key, value: value))
            values[key] = value
        }
        if let version = values["appVersion"] {
            let build = values["appBuildVersion"].map { " (\($0))" } ?? ""
            out.append(HeaderField(key: "Version", value: version + build))
        }
        if d.key == "crashDiagnostics" {
            let type = values["exceptionType"].flatMap { Int($0) }.map(MachException.name) ?? "crash"
            let signal = values["signal"].flatMap { Int($0) }.map { " (\(MachException.signalName($0)))" } ?? ""
            out.append(HeaderField(key: "Exception Type", value: type + signal))
        } else {
            out.append(HeaderField(key: "Exception Type", value: d.name))
        }
        return out
    }
}

/// Names of Mach exception types and signals, as crash reports print them.
enum MachException {
    static func name(_ type: Int) -> String {
        switch type {
        case 1: return "EXC_BAD_ACCESS"
        case 2: return "EXC_BAD_INSTRUCTION"
        case 3: return "EXC_ARITHMETIC"
        case 4: return "EXC_EMULATION"
        case 5: return "EXC_SOFTWARE"
        case 6: return "EXC_BREAKPOINT"
        case 7: return "EXC_SYSCALL"
        case 8: return "EXC_MACH_SYSCALL"
        case 9: return "EXC_RPC_ALERT"
        case 10: return "EXC_CRASH"
        case 11: return "EXC_RESOURCE"
        case 12: return "EXC_GUARD"
        case 13: return "EXC_CORPSE_NOTIFY"
        default: return "exception type \(type)"
        }
    }

    static func signalName(_ signal: Int) -> String {
        let names = [
            1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGEMT", 8: "SIGFPE",
            9: "SIGKILL", 10: "SIGBUS", 11: "SIGSEGV", 12: "SIGSYS", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM",
        ]
        return names[signal] ?? "signal \(signal)"
    }
}
