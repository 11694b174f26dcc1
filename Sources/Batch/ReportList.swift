// ReportList: the `--report-list FILE.jsonl` of a batch run, one JSON object a line for every
// input file, in the order files finish: `path`, `kind` (crash, ips, another report kind by its
// format's name, or skipped), `status` (full, partial, none, unparsable, skipped),
// `frames_symbolicated`, `frames_total`, `group` (the crash group's id, or null) and `reason`
// (why a file was skipped or is unparsable, or null). Lines are written as they come, through a
// buffer, so a run over millions of files holds none of them in memory. The file is written in
// place (a pipe or a device works too); a run that fails leaves the lines written so far.
// Only SummaryCollector calls it, with its lock held, so lines never interleave.

import Foundation
import Reports
import SymbolicateModel

final class ReportList {
    let path: String
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    /// The first write error; the run reports it at the end.
    private(set) var failure: SymbolicateError?

    static let flushSize = 64 << 10

    init(path: String) throws(SymbolicateError) {
        self.path = path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw SymbolicateError.system("cannot create the report list", path: path)
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    func report(path: String, facts: ReportFacts) {
        let status: String
        switch facts.level {
        case .full: status = "full"
        case .namedByReport: status = "named_by_report"
        case .partial: status = "partial"
        case .none: status = "none"
        }
        line(
            path: path, kind: facts.kind, status: status, symbolicated: facts.framesSymbolicated,
            total: facts.framesTotal,
            group: facts.groupID, reason: nil)
    }

    func unparsable(path: String, kind: String, reason: String) {
        line(path: path, kind: kind, status: "unparsable", symbolicated: 0, total: 0, group: nil, reason: reason)
    }

    func skipped(path: String, reason: String) {
        line(path: path, kind: "skipped", status: "skipped", symbolicated: 0, total: 0, group: nil, reason: reason)
    }

    private func line(
        path: String, kind: String, status: String, symbolicated: Int, total: Int, group: String?, reason: String?
    ) {
        var json = JSONWriter()
        json.beginObject()
        json.string("path", path)
        json.string("kind", kind)
        json.string("status", status)
        json.number("frames_symbolicated", symbolicated)
        json.number("frames_total", total)
        json.string("group", group)
        json.string("reason", reason)
        json.endObject()
        buffer += Array(json.text.utf8)
        buffer.append(0x0A)
        if buffer.count >= Self.flushSize { flush() }
    }

    /// Writes out what is buffered; the first failure is kept and later lines are dropped.
    func flush() {
        guard failure == nil else {
            buffer.removeAll()
            return
        }
        var offset = 0
        while offset < buffer.count {
            let n = buffer.withUnsafeBytes { write(descriptor, $0.baseAddress.map { $0 + offset }, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                failure = SymbolicateError.system("cannot write the report list", path: path)
                break
            }
            offset += n
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
