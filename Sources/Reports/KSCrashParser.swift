// KSCrashParser: the JSON reports KSCrash writes (1.x, 2.x, and Sentry's SentryCrash fork) as
// crash reports. A report is one object: `report` (id, timestamp, version), `binary_images[]`
// (`image_addr`, `image_size`, `name`, `uuid`, `cpu_type`/`cpu_subtype`), `system`, `process`,
// `user`, and `crash` with `error` (mach exception, signal, NSException or C++ exception and its
// reason) and `threads[]`, whose `backtrace.contents[]` are the frames (`instruction_addr`,
// `object_addr`, `object_name`, `symbol_addr`, `symbol_name`). A crash inside KSCrash's own
// handler leaves the report `incomplete` and nests the handler's crash as `recrash_report`, with
// a `crash` (and `crashed_thread`) of its own and the outer report's images: both are read.
//
// Address rules: a thread's first frame is its pc, the others return addresses. A frame names its
// image by `object_addr` (the image's load address); a frame without one is placed by address. An
// address is a JSON number or a decimal or 0x string (both occur), read from its digits, never
// through a Double, so addresses above 2^53 stay exact. A frame without `instruction_addr` keeps its
// place as a malformed frame; an image without a UUID is listed (frames in it are not looked up).
// The document is read into a JSONTape: any nesting depth is read without recursion.

import SymbolicateModel

public enum KSCrashParser {
    /// Where a report's frames sit on its tape, in document order.
    struct Layout {
        struct Thread {
            var entry: Int
            /// The `crash` object the thread belongs to (the report's, or its recrash report's).
            var crash: Int
            var isRecrash: Bool
            var frames: [Int]
        }

        var tape: JSONTape
        /// The report object.
        var root: Int
        var recrash: Int?
        var threads: [Thread]
    }

    /// True when the bytes look like a KSCrash report: cheap, key names only; `layout` decides.
    static func mayBeKSCrash(_ bytes: [UInt8]) -> Bool {
        FormatSniffer.contains(bytes, "\"report\"", limit: .max)
            && (FormatSniffer.contains(bytes, "\"crash\"", limit: .max)
                || FormatSniffer.contains(bytes, "\"binary_images\"", limit: .max))
    }

    /// The layout of the document at `start`, or nil when it is JSON of another kind: an object
    /// with a `report` object and a `crash` object or `binary_images` array. Throws for malformed JSON.
    static func layout(_ bytes: [UInt8], from start: Int) throws -> Layout? {
        let (tape, _) = try JSONTape.parse(bytes, from: start)
        guard tape.kind(0) == .object, let report = tape.member(0, "report"), tape.kind(report) == .object else {
            return nil
        }
        let crash = tape.member(0, "crash")
        let images = tape.member(0, "binary_images")
        guard crash.map({ tape.kind($0) == .object }) ?? false || images.map({ tape.kind($0) == .array }) ?? false
        else { return nil }
        var layout = Layout(tape: tape, root: 0, recrash: nil, threads: [])
        if let crash { layout.threads += threads(tape, crash: crash, isRecrash: false) }
        if let recrash = tape.member(0, "recrash_report"), tape.kind(recrash) == .object {
            layout.recrash = recrash
            if let crash = tape.member(recrash, "crash"), tape.kind(crash) == .object {
                layout.threads += threads(tape, crash: crash, isRecrash: true)
            }
        }
        return layout
    }

    /// The threads of one `crash` object: its `threads[]`, or the recrash report's single
    /// `crashed_thread`.
    private static func threads(_ tape: JSONTape, crash: Int, isRecrash: Bool) -> [Layout.Thread] {
        var entries: [Int] = []
        if let list = tape.member(crash, "threads"), tape.kind(list) == .array {
            entries = tape.children(list).filter { tape.kind($0) == .object }
        } else if let one = tape.member(crash, "crashed_thread"), tape.kind(one) == .object {
            entries = [one]
        }
        return entries.map { entry in
            var frames: [Int] = []
            if let backtrace = tape.member(entry, "backtrace"), let contents = tape.member(backtrace, "contents") {
                frames = tape.children(contents).filter { tape.kind($0) == .object }
            }
            return Layout.Thread(entry: entry, crash: crash, isRecrash: isRecrash, frames: frames)
        }
    }

    // MARK: The report

    /// Parses a KSCrash report starting at `start`; nil when the JSON is of another kind.
    static func parse(_ bytes: [UInt8], from start: Int) throws -> CrashReport? {
        guard let layout = try layout(bytes, from: start) else { return nil }
        let tape = layout.tape
        var report = CrashReport(format: .kscrash, original: bytes)
        report.images = images(tape, layout.root)
        report.fields = fields(tape, layout.root)
        report.arch = tape.string(tape.member(tape.member(layout.root, "system"), "cpu_arch")).map { Arch($0) }
        if report.arch == nil, let main = report.images.first { report.arch = main.arch }
        report.applicationSpecificInformation = reason(tape, tape.member(layout.root, "crash"))
        var byLoad: [UInt64: Int] = [:]
        for (i, image) in report.images.enumerated() where byLoad[image.loadAddress] == nil {
            byLoad[image.loadAddress] = i
        }
        for thread in layout.threads {
            let e = thread.entry
            let number = tape.int(tape.member(e, "index")) ?? report.backtraces.count
            var backtrace = Backtrace(
                kind: .thread, number: number, name: tape.string(tape.member(e, "name")),
                queue: tape.string(tape.member(e, "dispatch_queue")),
                crashed: tape.bool(tape.member(e, "crashed")) ?? thread.isRecrash)
            backtrace.frames.reserveCapacity(thread.frames.count)
            for (n, entry) in thread.frames.enumerated() {
                backtrace.frames.append(frame(entry, number: n, tape: tape, images: report.images, byLoad: byLoad))
            }
            report.backtraces.append(backtrace)
        }
        return report
    }

    /// One frame object as a Frame; malformed when it has no readable `instruction_addr`.
    private static func frame(
        _ e: Int, number: Int, tape: JSONTape, images: [BinaryImage], byLoad: [UInt64: Int]
    ) -> Frame {
        let objectName = tape.string(tape.member(e, "object_name"))
        guard let address = tape.uint64(tape.member(e, "instruction_addr")) else {
            return Frame(
                number: number, imageName: objectName, address: 0, isReturnAddress: number > 0, isMalformed: true)
        }
        var frame = Frame(number: number, imageName: objectName, address: address, isReturnAddress: number > 0)
        if let load = tape.uint64(tape.member(e, "object_addr")), let i = byLoad[load] {
            frame.imageIndex = i
            frame.imageName = images[i].name
        }
        frame.symbol = tape.string(tape.member(e, "symbol_name"))
        if frame.symbol != nil, let start = tape.uint64(tape.member(e, "symbol_addr")), start <= address {
            frame.symbolOffset = address - start
        }
        return frame
    }

    /// `binary_images[]`; an image without `image_addr` is left out (nothing can be placed in it).
    static func images(_ tape: JSONTape, _ root: Int) -> [BinaryImage] {
        guard let list = tape.member(root, "binary_images") else { return [] }
        return tape.children(list).compactMap { e in
            guard tape.kind(e) == .object, let load = tape.uint64(tape.member(e, "image_addr")) else { return nil }
            let path = tape.string(tape.member(e, "name"))
            let name = path.map { String($0.split(separator: "/", omittingEmptySubsequences: false).last ?? "") }
            let arch = tape.uint64(tape.member(e, "cpu_type")).flatMap { type in
                Arch(cpuType: type, cpuSubtype: tape.uint64(tape.member(e, "cpu_subtype")) ?? 0)
            }
            return BinaryImage(
                loadAddress: load, size: tape.uint64(tape.member(e, "image_size")), name: name ?? "???", arch: arch,
                uuid: tape.string(tape.member(e, "uuid")).flatMap { BuildID(reported: $0) }, path: path)
        }
    }

    /// Header fields in the text report's words, for summaries and `inspect`.
    static func fields(_ tape: JSONTape, _ root: Int) -> [HeaderField] {
        var out: [HeaderField] = []
        func add(_ key: String, _ value: String?) {
            if let value, !value.isEmpty { out.append(HeaderField(key: key, value: value)) }
        }
        let report = tape.member(root, "report")
        let system = tape.member(root, "system")
        func s(_ object: Int?, _ key: String) -> String? { tape.scalarText(tape.member(object, key)) }
        add("Incident Identifier", s(report, "id"))
        add("Process", s(system, "process_name") ?? s(report, "process_name"))
        add("Identifier", s(system, "CFBundleIdentifier"))
        if let version = s(system, "CFBundleShortVersionString") {
            add("Version", version + (s(system, "CFBundleVersion").map { " (\($0))" } ?? ""))
        }
        add("Hardware Model", s(system, "machine"))
        if let name = s(system, "system_name"), let version = s(system, "system_version") {
            add("OS Version", "\(name) \(version)" + (s(system, "os_version").map { " (\($0))" } ?? ""))
        }
        add("Date/Time", s(report, "timestamp"))
        add("Exception Type", exceptionType(tape, tape.member(root, "crash")))
        add("Report Type", s(report, "type"))
        add("KSCrash Report Version", tape.kind(report ?? 0) == .object ? version(tape, report) : nil)
        return out
    }

    /// `EXC_CRASH (SIGABRT)` from `crash.error`'s mach and signal names.
    static func exceptionType(_ tape: JSONTape, _ crash: Int?) -> String? {
        let error = tape.member(crash, "error")
        let mach = tape.member(error, "mach")
        let signal = tape.member(error, "signal")
        let machName =
            tape.string(tape.member(mach, "exception_name"))
            ?? tape.uint64(tape.member(mach, "exception")).map { MachException.name(Int(clamping: $0)) }
        let signalName =
            tape.string(tape.member(signal, "name"))
            ?? tape.uint64(tape.member(signal, "signal")).map { MachException.signalName(Int(clamping: $0)) }
        switch (machName, signalName) {
        case (let m?, let s?): return "\(m) (\(s))"
        case (let m?, nil): return m
        case (nil, let s?): return s
        default: return tape.string(tape.member(error, "type"))
        }
    }

    /// The exception's name and reason (an NSException, a C++ exception, a user-reported one).
    static func reason(_ tape: JSONTape, _ crash: Int?) -> String? {
        let error = tape.member(crash, "error")
        let reason =
            tape.string(tape.member(error, "reason"))
            ?? tape.string(tape.member(tape.member(error, "nsexception"), "reason"))
        let name =
            tape.string(tape.member(tape.member(error, "nsexception"), "name"))
            ?? tape.string(tape.member(tape.member(error, "cpp_exception"), "name"))
            ?? tape.string(tape.member(tape.member(error, "user_reported"), "name"))
        switch (name, reason) {
        case (let n?, let r?): return "\(n): \(r)"
        case (let n?, nil): return n
        case (nil, let r?): return r
        default: return nil
        }
    }

    /// `report.version`: `2.0` (`{major, minor}`, KSCrash 1.x) or the string as written.
    private static func version(_ tape: JSONTape, _ report: Int?) -> String? {
        let v = tape.member(report, "version")
        if let text = tape.scalarText(v) { return text }
        guard let major = tape.scalarText(tape.member(v, "major")) else { return nil }
        return major + "." + (tape.scalarText(tape.member(v, "minor")) ?? "0")
    }
}
