// SentryEventParser: Sentry event JSON, as the Cocoa and native SDKs send it, as a crash report.
// Stack traces sit in `exception.values[].stacktrace.frames[]` and `threads.values[].stacktrace
// .frames[]`; images in `debug_meta.images[]` (`type` macho, apple, symbolic or elf; `uuid` or
// `debug_id`; `image_addr`; `image_size`; `image_vmaddr`; `arch` or `cpu_type`/`cpu_subtype`).
//
// Sentry lists frames oldest first, the crashing frame last: a backtrace here holds them innermost
// first (as every other format's), so frame 0 is the last frame of the list, looked up as is,
// and the others are return addresses. An image's `image_addr` is its load address; an
// `image_vmaddr` of 0 (the corpus' SDKs write `"0x0"`) says nothing, and the symbol file's own
// `__TEXT` address is used, as it is for every format. Addresses are numbers or strings (0x or
// decimal), read from their digits. An event without `debug_meta` is read with no images (its
// frames stay unsymbolicated); a `thread_id` that names no thread changes nothing.

import SymbolicateModel

public enum SentryEventParser {
    /// Where an event's stack traces sit on its tape: each one's frame objects in document order.
    struct Layout {
        struct Trace {
            /// `exception.values[i]` or `threads.values[i]`.
            var entry: Int
            var name: String
            var isException: Bool
            var frames: [Int]
            /// Inline frames an earlier symbolication here inserted (`SentryEventWriter.insertedKey`),
            /// each with the frame object before it in the list and the frame they were inserted
            /// for: not frames of the trace, and replaced when that frame is symbolicated again.
            var inserted: [(entry: Int, previous: Int, frame: Int)] = []
        }

        var tape: JSONTape
        var traces: [Trace]
    }

    /// The image types that carry a Mach-O UUID or an ELF build id.
    static let imageTypes: Set<String> = ["macho", "apple", "symbolic", "elf"]

    /// True when the bytes look like a Sentry event: cheap, key names only; `layout` decides.
    static func mayBeSentryEvent(_ bytes: [UInt8]) -> Bool {
        FormatSniffer.contains(bytes, "\"stacktrace\"", limit: .max)
            && (FormatSniffer.contains(bytes, "\"debug_meta\"", limit: .max)
                || FormatSniffer.contains(bytes, "\"event_id\"", limit: .max)
                || FormatSniffer.contains(bytes, "\"sdk\"", limit: .max))
    }

    /// The layout of the event at `start`, or nil when it is JSON of another kind (an object with
    /// `exception` or `threads` holding `values`). Throws for malformed JSON.
    static func layout(_ bytes: [UInt8], from start: Int) throws -> Layout? {
        let (tape, _) = try JSONTape.parse(bytes, from: start)
        guard tape.kind(0) == .object else { return nil }
        var traces: [Layout.Trace] = []
        var known = false
        for (key, isException) in [("exception", true), ("threads", false)] {
            guard let values = tape.member(tape.member(0, key), "values"), tape.kind(values) == .array else { continue }
            known = true
            for (i, entry) in tape.children(values).enumerated() where tape.kind(entry) == .object {
                guard let list = tape.member(tape.member(entry, "stacktrace"), "frames") else { continue }
                var trace = Layout.Trace(
                    entry: entry, name: "\(key).values[\(i)]", isException: isException, frames: [])
                var previous: Int?
                for frame in tape.children(list) where tape.kind(frame) == .object {
                    if let previous, let outer = trace.frames.last,
                        tape.bool(tape.member(frame, SentryEventWriter.insertedKey)) == true
                    {
                        trace.inserted.append((frame, previous, outer))
                    } else {
                        trace.frames.append(frame)
                    }
                    previous = frame
                }
                traces.append(trace)
            }
        }
        return known ? Layout(tape: tape, traces: traces) : nil
    }

    /// Parses a Sentry event starting at `start`; nil when the JSON is of another kind.
    static func parse(_ bytes: [UInt8], from start: Int) throws -> CrashReport? {
        guard let layout = try layout(bytes, from: start) else { return nil }
        let tape = layout.tape
        var report = CrashReport(format: .sentryEvent, original: bytes)
        report.images = images(tape)
        report.arch = report.images.first?.arch
        for (key, field) in [("event_id", "Incident Identifier"), ("platform", "Platform"), ("timestamp", "Date/Time")]
        {
            if let value = tape.scalarText(tape.member(0, key)) {
                report.fields.append(HeaderField(key: key == field ? key : field, value: value))
            }
        }
        // The app, as the Cocoa SDK describes it: `contexts.app` (`app_name`, `app_identifier`,
        // `app_version`, `app_build`).
        let app = tape.member(tape.member(0, "contexts"), "app")
        for (key, field) in [("app_name", "Process"), ("app_identifier", "Identifier")] {
            if let value = tape.string(tape.member(app, key)), !value.isEmpty {
                report.fields.append(HeaderField(key: field, value: value))
            }
        }
        if let version = tape.scalarText(tape.member(app, "app_version")), !version.isEmpty {
            let build = tape.scalarText(tape.member(app, "app_build")).map { " (\($0))" } ?? ""
            report.fields.append(HeaderField(key: "Version", value: version + build))
        }
        let firstException = layout.traces.first { $0.isException }
        if let e = firstException?.entry, let type = tape.string(tape.member(e, "type")) {
            report.fields.append(HeaderField(key: "Exception Type", value: type))
            report.applicationSpecificInformation = tape.string(tape.member(e, "value"))
        }
        var byLoad: [UInt64: Int] = [:]
        for (i, image) in report.images.enumerated() where byLoad[image.loadAddress] == nil {
            byLoad[image.loadAddress] = i
        }
        for (t, trace) in layout.traces.enumerated() {
            let crashed =
                trace.isException
                ? trace.entry == firstException?.entry : tape.bool(tape.member(trace.entry, "crashed")) ?? false
            var backtrace = Backtrace(
                kind: .thread, number: tape.int(tape.member(trace.entry, "id")) ?? t,
                name: tape.string(tape.member(trace.entry, "name")) ?? trace.name, crashed: crashed)
            for (n, entry) in trace.frames.reversed().enumerated() {
                backtrace.frames.append(frame(entry, number: n, tape: tape, images: report.images, byLoad: byLoad))
            }
            report.backtraces.append(backtrace)
        }
        return report
    }

    private static func frame(
        _ e: Int, number: Int, tape: JSONTape, images: [BinaryImage], byLoad: [UInt64: Int]
    ) -> Frame {
        let package = tape.string(tape.member(e, "package"))
        let name = package.map { String($0.split(separator: "/", omittingEmptySubsequences: false).last ?? "") }
        guard let address = tape.uint64(tape.member(e, "instruction_addr")) else {
            return Frame(number: number, imageName: name, address: 0, isReturnAddress: number > 0, isMalformed: true)
        }
        var frame = Frame(number: number, imageName: name, address: address, isReturnAddress: number > 0)
        if let load = tape.uint64(tape.member(e, "image_addr")), let i = byLoad[load] {
            frame.imageIndex = i
            frame.imageName = images[i].name
        }
        frame.symbol = tape.string(tape.member(e, "function"))
        return frame
    }

    /// `debug_meta.images[]` of the types that name a build; one without `image_addr` is left out.
    static func images(_ tape: JSONTape) -> [BinaryImage] {
        guard let list = tape.member(tape.member(0, "debug_meta"), "images") else { return [] }
        return tape.children(list).compactMap { e in
            guard tape.kind(e) == .object, imageTypes.contains(tape.string(tape.member(e, "type")) ?? ""),
                let load = tape.uint64(tape.member(e, "image_addr"))
            else { return nil }
            let path =
                tape.string(tape.member(e, "code_file")) ?? tape.string(tape.member(e, "name"))
                ?? tape.string(tape.member(e, "debug_file"))
            let name = path.map { String($0.split(separator: "/", omittingEmptySubsequences: false).last ?? "") }
            var arch = tape.string(tape.member(e, "arch")).map { Arch($0) }
            if arch == nil, let type = tape.uint64(tape.member(e, "cpu_type")) {
                arch = Arch(cpuType: type, cpuSubtype: tape.uint64(tape.member(e, "cpu_subtype")) ?? 0)
            }
            let id = tape.string(tape.member(e, "uuid")) ?? tape.string(tape.member(e, "debug_id"))
            let uuid = id.flatMap(debugID)
            return BinaryImage(
                loadAddress: load, size: tape.uint64(tape.member(e, "image_size")),
                name: name ?? uuid?.uuidString ?? "???", arch: arch, uuid: uuid, path: path)
        }
    }

    /// A UUID, or a Sentry debug id (a UUID and an age appendix): its first 32 hex digits.
    static func debugID(_ text: String) -> BuildID? {
        let digits = text.filter { $0.isASCII && $0.isHexDigit }
        return BuildID(reported: digits.count >= 32 ? String(digits.prefix(32)) : digits)
    }
}
