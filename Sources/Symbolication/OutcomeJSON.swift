// `--format json` / `format=json`: every frame with its status and its symbols, and every
// image with its status, for scripts. Addresses are hex strings, as people read them; a
// malformed frame (one the report states but that could not be read) has a null address.

import Reports
import SymbolicateModel

public enum OutcomeJSON {
    public static func render(_ report: CrashReport, _ outcome: SymbolicationOutcome) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.string("format", report.format.rawValue)
        w.string("arch", report.arch?.rawValue)
        w.number("frames_symbolicated", outcome.symbolicatedFrames)
        w.number("frames_named_by_report", outcome.namedByReportFrames)
        w.number("frames_total", outcome.totalFrames)
        w.number("frames_failed", outcome.failedFrames)
        w.bool("complete", outcome.isComplete)
        let warnings = ProcessedReport(report: report, outcome: outcome, output: [], format: .json).warnings
        if !warnings.isEmpty {
            w.beginArray("warnings")
            for warning in warnings { w.string(nil, warning) }
            w.endArray()
        }
        let summary = ReportSummary(report)
        w.beginObject("report")
        w.string("app", summary.app)
        w.string("version", summary.version)
        w.string("os", summary.os)
        w.string("device", summary.device)
        w.string("exception", summary.exception)
        w.string("exception_type", summary.exceptionType)
        w.number("crashed_thread", summary.crashedThread)
        w.endObject()
        w.beginArray("images")
        for image in outcome.images {
            w.beginObject()
            w.string("name", image.image.name)
            w.string("uuid", image.image.uuid?.uuidString)
            w.string("arch", image.image.arch?.rawValue)
            w.string("load_address", ASCII.hex(image.image.loadAddress))
            if let path = image.image.path { w.string("path", path) }
            if SystemImage.isSystem(image.image) { w.bool("system", true) }
            w.string("status", statusName(image.status))
            if case .uuidMismatch(let found, let arch, let path) = image.status {
                w.string("found_uuid", found.uuidString)
                w.string("found_arch", arch.rawValue)
                w.string("found_path", path)
            }
            if case .failed(let message) = image.status { w.string("error", message) }
            w.number("frames_symbolicated", image.framesSymbolicated)
            w.number("frames_named_by_report", image.framesNamedByReport)
            w.number("frames_total", image.framesTotal)
            w.endObject()
        }
        w.endArray()
        // Which dyld shared cache would give the missing system images their symbols.
        let caches = DyldCacheAdvice.advise(report, missing: outcome.missing)
        if !caches.isEmpty {
            w.beginArray("dyld_caches")
            for cache in caches {
                w.beginObject()
                w.string("os", cache.os)
                if let build = cache.build { w.string("build", build) }
                if let arch = cache.arch { w.string("arch", arch.rawValue) }
                w.beginArray("images")
                for name in cache.images { w.string(nil, name) }
                w.endArray()
                w.string("advice", cache.summary)
                w.endObject()
            }
            w.endArray()
        }
        w.beginArray("backtraces")
        for (b, backtrace) in report.backtraces.enumerated() {
            w.beginObject()
            w.string("kind", backtrace.kind.rawValue)
            w.number("number", backtrace.number)
            if let name = backtrace.name { w.string("name", name) }
            if let queue = backtrace.queue { w.string("queue", queue) }
            w.bool("crashed", backtrace.crashed)
            w.beginArray("frames")
            for (f, frame) in backtrace.frames.enumerated() {
                let result = outcome.results[FrameID(backtrace: b, frame: f)] ?? FrameResult(status: .unknownImage)
                let image = report.image(for: frame)
                w.beginObject()
                w.number("number", frame.number)
                w.string("address", frame.addressText)
                w.string("image", image?.name ?? frame.imageName)
                w.string("status", result.status.rawValue)
                if let error = result.error { w.string("error", error) }
                if let symbol = frame.symbol {
                    // What the report itself said (system frames arrive symbolicated by the device).
                    w.string("report_symbol", frame.symbolOffset.map { "\(symbol) + \($0)" } ?? symbol)
                }
                w.beginArray("symbols")
                for symbol in result.frames {
                    w.beginObject()
                    w.string("function", symbol.symbol)
                    if let raw = symbol.rawSymbol { w.string("raw_function", raw) }
                    w.string("file", symbol.file)
                    w.number("line", symbol.line)
                    w.bool("inline", symbol.isInline)
                    w.number("offset", symbol.symbolOffset)
                    w.endObject()
                }
                w.endArray()
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return Array((w.text + "\n").utf8)
    }

    public static func statusName(_ status: ImageStatus) -> String {
        switch status {
        case .symbolicated: return "symbolicated"
        case .symbolTableOnly: return "symbol_table_only"
        case .missing: return "missing"
        case .uuidMismatch: return "uuid_mismatch"
        case .failed: return "failed"
        case .noUUID: return "no_uuid"
        }
    }

}
