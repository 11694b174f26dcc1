// PLCrashParser: PLCrashReporter's protobuf reports (`.plcrash`: the 7 bytes `plcrash`, a format
// version byte, then one `plcrash.CrashReport` message) as crash reports. The fields read, by the
// numbers of PLCrashReporter's public `crash_report.proto` (the subset our tests' schema
// Tests/PLCrash/plcrash.proto writes): system_info (1: operating_system 1,
// os_version 2, timestamp 4, os_build 5), application_info (2: identifier 1, version 2,
// marketing_version 3), threads (3: thread_number 1, frames 2 {pc 3, symbol 6 {name 1,
// start_address 2}}, crashed 3, registers 4 {name 1, value 2}), binary_images (4: base_address 1,
// size 2, name 3, uuid 4, code_type 5 {encoding 1, type 2, subtype 3}), exception (5: name 1,
// reason 2, frames 3), signal (6: name 1, code 2, address 3, mach_exception 4 {type 1, codes 2}),
// process_info (7: process_name 1, process_id 2, process_path 3, parent_process_name 4,
// parent_process_id 5), machine_info (8: model 1, processor 2), report_info (9: uuid 2).
// A thread's frame 0 is its pc; an exception's frames are all return addresses.

import SymbolicateModel

public enum PLCrashParser {
    /// "plcrash" and the one format version byte PLCrashReporter writes.
    static let magic = Array("plcrash".utf8)
    static let headerLength = 8

    static func isPLCrash(_ bytes: [UInt8]) -> Bool {
        bytes.count >= magic.count && bytes[0..<magic.count].elementsEqual(magic)
    }

    /// The decoded message: what the parser and the text renderer read.
    struct Decoded {
        struct Thread {
            var number: Int
            var crashed: Bool
            var frames: [(pc: UInt64, symbol: String?, start: UInt64?)]
            var registers: [(name: String, value: UInt64)]
        }

        var os: UInt64?
        var osVersion = ""
        var osBuild: String?
        var timestamp: UInt64?
        var identifier = ""
        var version = ""
        var marketingVersion: String?
        var threads: [Thread] = []
        var images: [BinaryImage] = []
        var exception: (name: String, reason: String, frames: [(pc: UInt64, symbol: String?, start: UInt64?)])?
        var signal = (name: "", code: "", address: UInt64(0))
        var machType: UInt64?
        var machCodes: [UInt64] = []
        var processName: String?
        var processID: UInt64?
        var processPath: String?
        var parentName: String?
        var parentID: UInt64?
        var model: String?
        var processor: (type: UInt64, subtype: UInt64)?
        var reportUUID: [UInt8]?
    }

    static func decode(_ bytes: [UInt8]) throws -> Decoded {
        guard bytes.count >= headerLength, isPLCrash(bytes) else {
            throw SymbolicateError(.badInput, "malformed PLCrashReporter report: shorter than its 8-byte header")
        }
        let r = ProtobufReader(bytes: bytes)
        var d = Decoded()
        func message(_ f: ProtobufReader.Field, _ name: String) throws -> [ProtobufReader.Field] {
            guard f.wireType == .len else {
                throw r.fail("\(name): wire type \(f.wireType.rawValue), expected a message")
            }
            return try r.fields(f.range, message: name)
        }
        func text(_ f: ProtobufReader.Field, _ name: String) throws -> String {
            guard f.wireType == .len else {
                throw r.fail("\(name): wire type \(f.wireType.rawValue), expected a string")
            }
            return r.string(f)
        }
        func int(_ f: ProtobufReader.Field, _ name: String) throws -> UInt64 {
            guard f.wireType == .varint || f.wireType == .i64 || f.wireType == .i32 else {
                throw r.fail("\(name): wire type \(f.wireType.rawValue), expected a number")
            }
            return f.integer
        }
        func frame(_ f: ProtobufReader.Field, _ name: String) throws -> (pc: UInt64, symbol: String?, start: UInt64?) {
            var out: (pc: UInt64, symbol: String?, start: UInt64?) = (0, nil, nil)
            for g in try message(f, name) {
                if g.number == 3 { out.pc = try int(g, name + ".pc") }
                if g.number == 6 {
                    for s in try message(g, name + ".symbol") {
                        if s.number == 1 { out.symbol = try text(s, name + ".symbol.name") }
                        if s.number == 2 { out.start = try int(s, name + ".symbol.start_address") }
                    }
                }
            }
            return out
        }
        for f in try r.fields(ProtobufReader.headerLength(of: bytes), message: "CrashReport") {
            switch f.number {
            case 1:
                for g in try message(f, "system_info") {
                    switch g.number {
                    case 1: d.os = try int(g, "system_info.operating_system")
                    case 2: d.osVersion = try text(g, "system_info.os_version")
                    case 4: d.timestamp = try int(g, "system_info.timestamp")
                    case 5: d.osBuild = try text(g, "system_info.os_build")
                    default: break
                    }
                }
            case 2:
                for g in try message(f, "application_info") {
                    switch g.number {
                    case 1: d.identifier = try text(g, "application_info.identifier")
                    case 2: d.version = try text(g, "application_info.version")
                    case 3: d.marketingVersion = try text(g, "application_info.marketing_version")
                    default: break
                    }
                }
            case 3:
                var t = Decoded.Thread(number: d.threads.count, crashed: false, frames: [], registers: [])
                for g in try message(f, "threads[\(d.threads.count)]") {
                    let name = "threads[\(d.threads.count)]"
                    switch g.number {
                    case 1: t.number = Int(clamping: try int(g, name + ".thread_number"))
                    case 2: t.frames.append(try frame(g, name + ".frames[\(t.frames.count)]"))
                    case 3: t.crashed = try int(g, name + ".crashed") != 0
                    case 4:
                        var reg = (name: "", value: UInt64(0))
                        for h in try message(g, name + ".registers") {
                            if h.number == 1 { reg.name = try text(h, name + ".registers.name") }
                            if h.number == 2 { reg.value = try int(h, name + ".registers.value") }
                        }
                        t.registers.append(reg)
                    default: break
                    }
                }
                d.threads.append(t)
            case 4:
                let name = "binary_images[\(d.images.count)]"
                var image = BinaryImage(loadAddress: 0, name: "???")
                var type: (UInt64, UInt64)? = nil
                for g in try message(f, name) {
                    switch g.number {
                    case 1: image.loadAddress = try int(g, name + ".base_address")
                    case 2: image.size = try int(g, name + ".size")
                    case 3:
                        image.path = try text(g, name + ".name")
                        image.name = String(image.path?.split(separator: "/").last ?? "???")
                    case 4:
                        guard g.wireType == .len else { throw r.fail(name + ".uuid: expected bytes") }
                        let raw = Array(bytes[g.range])
                        // Older reports hold the UUID as 32 hex characters, newer ones as 16 bytes.
                        image.uuid = raw.count == 16 ? BuildID(bytes: raw) : BuildID(reported: r.string(g))
                        if image.uuid?.bytes.allSatisfy({ $0 == 0 }) == true { image.uuid = nil }
                    case 5:
                        var t: UInt64 = 0
                        var s: UInt64 = 0
                        for h in try message(g, name + ".code_type") {
                            if h.number == 2 { t = try int(h, name + ".code_type.type") }
                            if h.number == 3 { s = try int(h, name + ".code_type.subtype") }
                        }
                        type = (t, s)
                    default: break
                    }
                }
                if let type { image.arch = Arch(cpuType: type.0, cpuSubtype: type.1) }
                d.images.append(image)
            case 5:
                var e: (name: String, reason: String, frames: [(pc: UInt64, symbol: String?, start: UInt64?)]) = (
                    "", "", []
                )
                for g in try message(f, "exception") {
                    switch g.number {
                    case 1: e.name = try text(g, "exception.name")
                    case 2: e.reason = try text(g, "exception.reason")
                    case 3: e.frames.append(try frame(g, "exception.frames[\(e.frames.count)]"))
                    default: break
                    }
                }
                d.exception = e
            case 6:
                for g in try message(f, "signal") {
                    switch g.number {
                    case 1: d.signal.name = try text(g, "signal.name")
                    case 2: d.signal.code = try text(g, "signal.code")
                    case 3: d.signal.address = try int(g, "signal.address")
                    case 4:
                        for h in try message(g, "signal.mach_exception") {
                            if h.number == 1 { d.machType = try int(h, "signal.mach_exception.type") }
                            if h.number == 2 { d.machCodes.append(try int(h, "signal.mach_exception.codes")) }
                        }
                    default: break
                    }
                }
            case 7:
                for g in try message(f, "process_info") {
                    switch g.number {
                    case 1: d.processName = try text(g, "process_info.process_name")
                    case 2: d.processID = try int(g, "process_info.process_id")
                    case 3: d.processPath = try text(g, "process_info.process_path")
                    case 4: d.parentName = try text(g, "process_info.parent_process_name")
                    case 5: d.parentID = try int(g, "process_info.parent_process_id")
                    default: break
                    }
                }
            case 8:
                for g in try message(f, "machine_info") {
                    if g.number == 1 { d.model = try text(g, "machine_info.model") }
                    if g.number == 2 {
                        var t: UInt64 = 0
                        var s: UInt64 = 0
                        for h in try message(g, "machine_info.processor") {
                            if h.number == 2 { t = try int(h, "machine_info.processor.type") }
                            if h.number == 3 { s = try int(h, "machine_info.processor.subtype") }
                        }
                        d.processor = (t, s)
                    }
                }
            case 9:
                for g in try message(f, "report_info") where g.number == 2 && g.wireType == .len {
                    d.reportUUID = Array(bytes[g.range])
                }
            default: break
            }
        }
        return d
    }

    static func parse(_ bytes: [UInt8]) throws -> CrashReport {
        let d = try decode(bytes)
        var report = CrashReport(format: .plcrash, original: bytes)
        report.images = d.images
        report.arch = d.processor.map { Arch(cpuType: $0.type, cpuSubtype: $0.subtype) } ?? d.images.first?.arch
        // plcrashutil's placeholders (`TODO`, `???`) say the report has no value: no field.
        report.fields = PLCrashTextRenderer.header(d).filter {
            !$0.value.isEmpty && $0.value != "TODO" && !$0.value.contains("???")
        }
        if let e = d.exception { report.applicationSpecificInformation = "\(e.name): \(e.reason)" }
        for t in d.threads {
            var backtrace = Backtrace(kind: .thread, number: t.number, crashed: t.crashed)
            backtrace.frames = t.frames.enumerated().map { n, f in
                frame(f, number: n, isReturnAddress: n > 0)
            }
            report.backtraces.append(backtrace)
        }
        if let e = d.exception, !e.frames.isEmpty {
            var backtrace = Backtrace(kind: .lastException)
            backtrace.frames = e.frames.enumerated().map { n, f in frame(f, number: n, isReturnAddress: true) }
            report.backtraces.append(backtrace)
        }
        return report
    }

    private static func frame(
        _ f: (pc: UInt64, symbol: String?, start: UInt64?), number: Int, isReturnAddress: Bool
    ) -> Frame {
        var frame = Frame(number: number, address: f.pc, symbol: f.symbol, isReturnAddress: isReturnAddress)
        if let start = f.start, start <= f.pc, f.symbol != nil { frame.symbolOffset = f.pc - start }
        return frame
    }
}

extension ProtobufReader {
    /// The message's bytes in a `.plcrash` file: after its 8-byte header.
    static func headerLength(of bytes: [UInt8]) -> Range<Int> {
        min(PLCrashParser.headerLength, bytes.count)..<bytes.count
    }
}
