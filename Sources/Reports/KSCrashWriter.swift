// KSCrashWriter: a symbolicated KSCrash report written back as the same JSON. Each symbolicated
// frame object of `backtrace.contents[]` gets, beside KSCrash's own keys (which are kept: its
// `symbol_name` is what the device's `dladdr` saw, often `<redacted>` or a neighbour's name):
//
// - `symbolicated_name`: the outermost function at the address (demangled),
// - `symbolicated_offset`: the address's offset into it,
// - `source_file` and `source_line`: where that function's code at the address comes from,
// - `inlined_frames`: when functions were inlined there, an array of objects with the same four
//   keys, innermost first.
//
// The rule is MetricKit's (MetricKitWriter.keyEdits): a key the object has (an earlier run wrote
// it) gets the new value in its place, the others go after the object's last member, in the
// object's own separators; `source_file`, `source_line` and `inlined_frames` the new result has
// none for are removed. Every other byte stays as it was.

import SymbolicateModel

enum KSCrashWriter {
    /// The keys a symbolicated KSCrash frame is given.
    static let keys = FrameKeys(
        symbol: "symbolicated_name", offset: "symbolicated_offset", file: "source_file", line: "source_line")
    static let inlineFrames = "inlined_frames"

    static func write(_ report: CrashReport, results: [FrameID: FrameResult]) -> [UInt8] {
        let original = report.original
        guard let layout = layout(original) else { return original }
        var edits: [ByteEdit] = []
        for (b, thread) in layout.threads.enumerated() {
            for (f, entry) in thread.frames.enumerated() {
                guard let result = results[FrameID(backtrace: b, frame: f)], result.status == .symbolicated,
                    let outer = result.frames.last
                else { continue }
                edits += MetricKitWriter.keyEdits(
                    entry, outer, inline: result.frames.dropLast(), tape: layout.tape, original: original, keys: keys,
                    inlineFrames: inlineFrames, last: [])
            }
        }
        return ByteEdit.apply(edits, to: original)
    }

    /// The KSCrash report in `bytes`, or nil when there is none to rewrite.
    static func layout(_ bytes: [UInt8]) -> KSCrashParser.Layout? {
        guard let start = MetricKitWriter.jsonStart(bytes) else { return nil }
        return try? KSCrashParser.layout(bytes, from: start)
    }
}
