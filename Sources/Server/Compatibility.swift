// Request and response shapes of the two symbolication services users migrate from, mapped onto
// our model: the request becomes a CrashReport (images + backtraces) that the same Symbolicator
// handles, and the outcome is written back in the other service's shape.
// - Sentry Symbolicator `POST /symbolicate`: `modules` (debug_id = the Mach-O UUID, image_addr,
//   image_size) and `stacktraces` of absolute `instruction_addr`; answers frames with function,
//   filename, lineno, inline frames expanded (each with the same `original_index`).
// - Mozilla Symbolication v5 `POST /symbolicate/v5`: `memoryMap` of [debug_file, debug_id] (UUID in
//   uppercase hex without dashes, then an age digit) and `stacks` of [module_index, module_offset];
//   answers `results[].stacks` and `found_modules`.

import Foundation
import Reports
import SymbolicateModel
import Symbolication

enum SentryCompatibility {
    /// A crash report sent here instead of to `/v1/symbolicate`.
    static let sentReport = HTTPError.badRequest(
        "this endpoint takes Symbolicator's JSON (`modules`, `stacktraces`); text reports go to /v1/symbolicate")

    static func symbolicate(_ request: HTTPRequest, context: ServiceContext, limit: Int) throws -> HTTPResponse {
        let body = try ContentDecoding.decode(request.body, encoding: request.header("content-encoding"), limit: limit)
        let object: [String: Any]
        do {
            object = try JSONValue.object(body)
        } catch {
            throw ReportParser.looksLikeReport(body) ? sentReport : error
        }
        guard let modules = (object["modules"] ?? [Any]()) as? [Any], let stacktraces = object["stacktraces"] as? [Any]
        else {
            if object["stacktraces"] == nil, ReportParser.looksLikeReport(body) { throw sentReport }
            throw HTTPError.badRequest("expected `stacktraces` (array) and `modules` (array)")
        }
        var images: [BinaryImage] = []
        for (i, entry) in modules.enumerated() {
            guard let module = entry as? [String: Any], let base = JSONValue.integer(module["image_addr"]) else {
                throw HTTPError.badRequest("modules[\(i)] needs `image_addr`")
            }
            let file = (module["code_file"] as? String) ?? (module["debug_file"] as? String) ?? "module\(i)"
            images.append(
                BinaryImage(
                    loadAddress: base, size: JSONValue.integer(module["image_size"]),
                    name: String(file.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last ?? Substring(file)),
                    arch: (module["arch"] as? String).map { Arch($0) }, uuid: debugID(module["debug_id"] as? String),
                    path: file))
        }
        // A module without `image_size` runs up to the next module, as Sentry places frames.
        let imageMap = ImageMap(images, unsizedImages: .reachNextImage)
        var backtraces: [Backtrace] = []
        for (s, entry) in stacktraces.enumerated() {
            guard let trace = entry as? [String: Any], let frames = trace["frames"] as? [Any] else {
                throw HTTPError.badRequest("stacktraces[\(s)] needs `frames` (array)")
            }
            var parsed: [Frame] = []
            for (f, frameEntry) in frames.enumerated() {
                guard let frame = frameEntry as? [String: Any],
                    let address = JSONValue.integer(frame["instruction_addr"])
                else {
                    throw HTTPError.badRequest("stacktraces[\(s)].frames[\(f)] needs `instruction_addr`")
                }
                let adjust = (frame["adjust_instruction_addr"] as? Bool) ?? (f > 0)
                parsed.append(
                    Frame(
                        number: f, imageIndex: imageMap.index(containing: address), address: address,
                        isReturnAddress: adjust))
            }
            backtraces.append(
                Backtrace(kind: .thread, number: s, crashed: (trace["is_requesting"] as? Bool) ?? false, frames: parsed)
            )
        }
        let report = CrashReport(format: .ips, original: [], backtraces: backtraces, images: images)
        let outcome = try context.service().symbolicator.symbolicate(report)
        try FailedLookups.check(outcome, request)
        var outTraces: [[String: Any]] = []
        for (b, backtrace) in report.backtraces.enumerated() {
            var frames: [[String: Any]] = []
            for (f, frame) in backtrace.frames.enumerated() {
                let result = outcome.results[FrameID(backtrace: b, frame: f)] ?? FrameResult(status: .unknownImage)
                var base: [String: Any] = ["original_index": f, "instruction_addr": ASCII.hex(frame.address)]
                if let i = frame.imageIndex { base["package"] = images[i].path ?? images[i].name }
                guard result.status == .symbolicated else {
                    base["status"] =
                        result.status == .unknownImage
                        ? "unknown_image" : (result.status == .malformed ? "malformed" : "missing")
                    if result.status == .failed {
                        // Sentry's words: a debug file that could not be fetched is `missing` (its
                        // module says fetching_failed), one that could not be processed `malformed`.
                        let failure = frame.imageIndex.flatMap { i in
                            outcome.images.first { $0.image == images[i] }?.failure
                        }
                        base["status"] = failure?.code == .unavailable ? "missing" : "malformed"
                    }
                    frames.append(base)
                    continue
                }
                for level in result.frames {
                    var out = base
                    out["status"] = "symbolicated"
                    out["function"] = level.symbol
                    out["symbol"] = level.rawSymbol ?? level.symbol
                    if let file = level.file {
                        out["abs_path"] = file
                        out["filename"] = level.fileName ?? file
                    }
                    if let line = level.line { out["lineno"] = line }
                    if let offset = level.symbolOffset, frame.address >= offset {
                        out["sym_addr"] = ASCII.hex(frame.address - offset)
                    }
                    frames.append(out)
                }
            }
            outTraces.append(["frames": frames])
        }
        var outModules: [[String: Any]] = []
        for (i, image) in images.enumerated() {
            let imageOutcome = outcome.images.first { $0.image == image }
            var module: [String: Any] = [
                "type": "macho", "image_addr": ASCII.hex(image.loadAddress), "code_file": image.path ?? image.name,
                "debug_status": imageOutcome.map(debugStatus) ?? "unused",
            ]
            if let uuid = image.uuid { module["debug_id"] = uuid.uuidString.lowercased() }
            if let size = image.size { module["image_size"] = size }
            module["index"] = i
            outModules.append(module)
        }
        context.recordFrames(outcome)
        return .json(["status": "completed", "stacktraces": outTraces, "modules": outModules])
    }

    private static func debugStatus(_ image: ImageOutcome) -> String {
        switch image.status {
        case .symbolicated, .symbolTableOnly: return "found"
        case .missing, .uuidMismatch: return "missing"
        case .failed: return image.failure?.code == .unavailable ? "fetching_failed" : "malformed"
        case .noUUID: return "unused"
        }
    }

    /// A Sentry debug id: a UUID, possibly followed by an age appendix; the first 32 hex digits.
    static func debugID(_ text: String?) -> BuildID? {
        guard let text else { return nil }
        let digits = text.filter { $0.isASCII && $0.isHexDigit }
        guard digits.count >= 32 else { return BuildID(string: digits) }
        return BuildID(string: String(digits.prefix(32)))
    }
}

enum MozillaCompatibility {
    static func symbolicate(_ request: HTTPRequest, context: ServiceContext, limit: Int) throws -> HTTPResponse {
        let body = try ContentDecoding.decode(request.body, encoding: request.header("content-encoding"), limit: limit)
        let object = try JSONValue.object(body)
        let jobs: [[String: Any]]
        if let list = object["jobs"] as? [Any] {
            jobs = try list.enumerated().map { i, job in
                guard let job = job as? [String: Any] else { throw HTTPError.badRequest("jobs[\(i)] is not an object") }
                return job
            }
        } else {
            jobs = [object]
        }
        guard jobs.count <= 100 else { throw HTTPError.badRequest("at most 100 jobs per request") }
        let symbolicator = try context.service().symbolicator
        let partial = FailedLookups.partialAllowed(request)
        return .json([
            "results": try jobs.enumerated().map { try job($1, index: $0, symbolicator, context, partial: partial) }
        ])
    }

    private static func job(
        _ job: [String: Any], index: Int, _ symbolicator: Symbolicator, _ context: ServiceContext, partial: Bool
    ) throws -> [String: Any] {
        guard let memoryMap = job["memoryMap"] as? [Any], let stacks = job["stacks"] as? [Any] else {
            throw HTTPError.badRequest("job \(index) needs `memoryMap` and `stacks` (arrays)")
        }
        var images: [BinaryImage] = []
        var keys: [String] = []
        for (i, entry) in memoryMap.enumerated() {
            guard let pair = entry as? [Any], pair.count == 2, let file = pair[0] as? String,
                let id = pair[1] as? String
            else {
                throw HTTPError.badRequest("memoryMap[\(i)] must be [debug_file, debug_id]")
            }
            // Each module gets its own address range so offsets never collide.
            images.append(
                BinaryImage(
                    loadAddress: UInt64(i + 1) << 40, size: 1 << 40, name: file, uuid: SentryCompatibility.debugID(id)))
            keys.append("\(file)/\(id)")
        }
        var backtraces: [Backtrace] = []
        for (s, entry) in stacks.enumerated() {
            guard let stack = entry as? [Any] else { throw HTTPError.badRequest("stacks[\(s)] is not an array") }
            var frames: [Frame] = []
            for (f, frameEntry) in stack.enumerated() {
                guard let pair = frameEntry as? [Any], pair.count == 2,
                    let moduleIndex = (pair[0] as? NSNumber)?.intValue,
                    let offset = JSONValue.integer(pair[1])
                else { throw HTTPError.badRequest("stacks[\(s)][\(f)] must be [module_index, module_offset]") }
                let known = images.indices.contains(moduleIndex) && offset < (1 << 40)
                let address = known ? images[moduleIndex].loadAddress + offset : offset
                frames.append(
                    Frame(number: f, imageIndex: known ? moduleIndex : nil, address: address, isReturnAddress: false))
            }
            backtraces.append(Backtrace(kind: .thread, number: s, frames: frames))
        }
        let report = CrashReport(format: .ips, original: [], backtraces: backtraces, images: images)
        let outcome = symbolicator.symbolicate(report)
        if outcome.failedFrames > 0, !partial { throw FailedLookups.refusal(outcome) }
        var found: [String: Any] = [:]
        for key in keys { found[key] = NSNull() }
        for image in outcome.images {
            guard let i = images.firstIndex(of: image.image) else { continue }
            switch image.status {
            case .symbolicated, .symbolTableOnly: found[keys[i]] = true
            default: found[keys[i]] = false
            }
        }
        var outStacks: [[[String: Any]]] = []
        for (b, backtrace) in report.backtraces.enumerated() {
            outStacks.append(
                backtrace.frames.enumerated().map { f, frame in
                    var out: [String: Any] = ["frame": f]
                    guard let i = frame.imageIndex else {
                        out["module_offset"] = ASCII.hex(frame.address)
                        return out
                    }
                    out["module"] = images[i].name
                    out["module_offset"] = ASCII.hex(frame.address - images[i].loadAddress)
                    let result = outcome.results[FrameID(backtrace: b, frame: f)] ?? FrameResult(status: .unknownImage)
                    guard result.status == .symbolicated, let outer = result.frames.last else { return out }
                    out["function"] = outer.symbol
                    if let offset = outer.symbolOffset { out["function_offset"] = ASCII.hex(offset) }
                    if let file = outer.file { out["file"] = file }
                    if let line = outer.line { out["line"] = line }
                    let inlines = result.frames.dropLast().map { level -> [String: Any] in
                        var inline: [String: Any] = ["function": level.symbol]
                        if let file = level.file { inline["file"] = file }
                        if let line = level.line { inline["line"] = line }
                        return inline
                    }
                    if !inlines.isEmpty { out["inlines"] = inlines }
                    return out
                })
        }
        context.recordFrames(outcome)
        return ["stacks": outStacks, "found_modules": found]
    }
}
