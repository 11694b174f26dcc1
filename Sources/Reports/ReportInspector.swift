// ReportInspector: describes a parsed report for people (`symbolicate inspect`) and for tools
// (`symbolicate inspect --json`): format, arch, header fields, backtraces with their frames,
// and images with UUID, arch, load address and size. The JSON keeps field order. A malformed
// frame (stated by the report, not readable) is shown as such, with no address.

import SymbolicateModel

public enum ReportInspector {
    public static func text(_ r: CrashReport) -> String {
        var out: [String] = []
        out.append("format: \(r.format.rawValue)")
        out.append("arch: \(r.arch?.rawValue ?? "unknown")")
        if let header = r.jsonHeader { out.append("json header: \(header)") }
        out.append("fields: \(r.fields.count)")
        for field in r.fields { out.append("  \(field.key): \(field.value)") }
        if let asi = r.applicationSpecificInformation {
            out.append("application specific information:")
            for line in asi.split(separator: "\n", omittingEmptySubsequences: false) { out.append("  \(line)") }
        }
        out.append("backtraces: \(r.backtraces.count), frames: \(r.frameCount)")
        for b in r.backtraces {
            var title = b.kind == .thread ? "thread \(b.number.map(String.init) ?? "?")" : b.kind.rawValue
            if b.crashed { title += " (crashed)" }
            if let name = b.name { title += " name: \(name)" }
            if let queue = b.queue { title += " queue: \(queue)" }
            out.append("  \(title): \(count: b.frames.count, "frame")")
            for f in b.frames {
                var line = "    \(f.number) \(f.imageName ?? "???") \(f.addressText ?? "???")"
                if let i = f.imageIndex { line += " image #\(i)" }
                if let symbol = f.symbol { line += " \(symbol)" + (f.symbolOffset.map { " + \($0)" } ?? "") }
                if let file = f.sourceFile { line += " (\(file)" + (f.sourceLine.map { ":\($0)" } ?? "") + ")" }
                if f.isMalformed { line += " malformed" }
                out.append(line)
            }
        }
        out.append("images: \(r.images.count)")
        for (i, image) in r.images.enumerated() {
            var line = "  #\(i) \(image.name) \(image.arch?.rawValue ?? "?") \(image.uuid?.description ?? "no-uuid")"
            line += " load \(ASCII.hex(image.loadAddress))"
            if let size = image.size { line += " size \(ASCII.hex(size))" }
            if let path = image.path { line += " \(path)" }
            out.append(line)
        }
        return out.joined(separator: "\n") + "\n"
    }

    public static func json(_ r: CrashReport) -> String {
        func q(_ s: String?) -> String { s.map(JSONWriter.quote) ?? "null" }
        func n<T: BinaryInteger>(_ v: T?) -> String { v.map { String($0) } ?? "null" }
        var parts: [String] = []
        parts.append("\"format\":\(q(r.format.rawValue))")
        parts.append("\"arch\":\(q(r.arch?.rawValue))")
        parts.append("\"json_header\":\(q(r.jsonHeader))")
        parts.append(
            "\"fields\":[" + r.fields.map { "{\"key\":\(q($0.key)),\"value\":\(q($0.value))}" }.joined(separator: ",")
                + "]")
        parts.append("\"application_specific_information\":\(q(r.applicationSpecificInformation))")
        let backtraces = r.backtraces.map { b -> String in
            let frames = b.frames.map { f -> String in
                "{\"number\":\(f.number),\"image\":\(q(f.imageName)),\"image_index\":\(n(f.imageIndex)),"
                    + "\"address\":\(q(f.addressText)),\"symbol\":\(q(f.symbol)),\"symbol_offset\":\(n(f.symbolOffset)),"
                    + "\"source_file\":\(q(f.sourceFile)),\"source_line\":\(n(f.sourceLine)),"
                    + "\"return_address\":\(f.isReturnAddress),\"malformed\":\(f.isMalformed)}"
            }
            return
                "{\"kind\":\(q(b.kind.rawValue)),\"number\":\(n(b.number)),\"name\":\(q(b.name)),\"queue\":\(q(b.queue)),"
                + "\"crashed\":\(b.crashed),\"frames\":[" + frames.joined(separator: ",") + "]}"
        }
        parts.append("\"backtraces\":[" + backtraces.joined(separator: ",") + "]")
        let images = r.images.map { i -> String in
            "{\"name\":\(q(i.name)),\"uuid\":\(q(i.uuid?.description)),\"arch\":\(q(i.arch?.rawValue)),"
                + "\"load_address\":\(q(ASCII.hex(i.loadAddress))),\"size\":\(n(i.size)),\"path\":\(q(i.path)),"
                + "\"version\":\(q(i.version)),\"marked\":\(i.isMarked)}"
        }
        parts.append("\"images\":[" + images.joined(separator: ",") + "]")
        return "{" + parts.joined(separator: ",") + "}"
    }
}
