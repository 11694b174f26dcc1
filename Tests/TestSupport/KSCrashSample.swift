// Reports of the in-app reporters' formats over the Samples' build, written here from
// build/images.tsv (UUIDs, load addresses) and the HoldApp / HoldKit frame addresses of a sample
// report: a KSCrash JSON report as KSCrash writes one (numbers for addresses, `object_addr` naming
// the image) and a Sentry event (frames oldest first, addresses as strings, `image_vmaddr: "0x0"`).

import Foundation
import Testing

public enum KSCrashSample {
    public static let variant = "ios-arm64-dwarf5"
    public static var available: Bool {
        FileManager.default.fileExists(atPath: Repository.samples + "/build/images.tsv")
            && FileManager.default.fileExists(atPath: Repository.samples + "/reports/HoldApp-\(variant).crash")
    }

    /// The sample build's images (name, load address, size, UUID) from build/images.tsv, and
    /// the HoldApp / HoldKit frames of the sample report (address, image name, load address), innermost first:
    /// every thread's, or the crashed thread's alone.
    public static func sample(crashedThreadOnly: Bool = false) throws -> (
        images: [(name: String, load: UInt64, size: UInt64, uuid: String)],
        frames: [(address: UInt64, image: String, load: UInt64)]
    ) {
        let tsv = try String(contentsOfFile: Repository.samples + "/build/images.tsv", encoding: .utf8)
        var images: [(name: String, load: UInt64, size: UInt64, uuid: String)] = []
        for line in tsv.split(separator: "\n") where line.hasPrefix(variant + "\t") {
            let c = line.split(separator: "\t").map(String.init)
            let load = try #require(UInt64(c[6].dropFirst(2), radix: 16))
            let size = try #require(UInt64(c[5].dropFirst(2), radix: 16))
            images.append((c[1], load, size, c[3]))
        }
        let loads = Dictionary(images.map { ($0.name, $0.load) }) { a, _ in a }
        let text = try String(contentsOfFile: Repository.samples + "/reports/HoldApp-\(variant).crash", encoding: .utf8)
        var frames: [(address: UInt64, image: String, load: UInt64)] = []
        var inCrashed = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("Thread ") { inCrashed = line.hasSuffix("Crashed:") }
            if line.isEmpty { inCrashed = false }
            if crashedThreadOnly && !inCrashed { continue }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 3, Int(words[0]) != nil, let load = loads[String(words[1])],
                words[2].hasPrefix("0x"), let address = UInt64(words[2].dropFirst(2), radix: 16)
            else { continue }
            frames.append((address, String(words[1]), load))
        }
        return (images, frames)
    }

    /// A KSCrash report with one thread holding every HoldApp / HoldKit frame of the sample report.
    public static func report(crashedThreadOnly: Bool = false) throws -> [UInt8] {
        let sample = try sample(crashedThreadOnly: crashedThreadOnly)
        let images: [[String: Any]] = sample.images.map {
            [
                "image_addr": $0.load, "image_size": $0.size, "name": "/private/var/containers/Bundle/\($0.name)",
                "uuid": $0.uuid, "cpu_type": 16_777_228, "cpu_subtype": 0,
            ]
        }
        let frames: [[String: Any]] = sample.frames.map {
            ["instruction_addr": $0.address, "object_addr": $0.load, "object_name": $0.image]
        }
        let root: [String: Any] = [
            "report": ["id": "B265D762-E427-46FF-BE36-C27F7D3DA0AB", "version": "2.0.0", "type": "standard"],
            "binary_images": images,
            "system": [
                "cpu_arch": "arm64", "CFBundleExecutablePath": "/private/var/containers/Bundle/HoldApp",
                "process_name": "HoldApp", "CFBundleIdentifier": "com.example.HoldApp",
            ],
            "crash": [
                "error": ["type": "signal", "signal": ["signal": 6, "name": "SIGABRT"]],
                "threads": [["index": 0, "crashed": true, "backtrace": ["contents": frames, "skipped": 0]]],
            ],
        ]
        return [UInt8](try JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys]))
    }

    /// An event over the sample build: one exception and one thread with the sample's frames,
    /// oldest first.
    public static func sentryEvent(crashedThreadOnly: Bool = false) throws -> [UInt8] {
        let sample = try KSCrashSample.sample(crashedThreadOnly: crashedThreadOnly)
        let images: [[String: Any]] = sample.images.map {
            [
                "type": "macho", "debug_id": $0.uuid.lowercased(), "image_addr": "0x" + String($0.load, radix: 16),
                "image_vmaddr": "0x0", "image_size": $0.size, "code_file": "/private/var/\($0.name)", "arch": "arm64",
            ]
        }
        let frames: [[String: Any]] = sample.frames.reversed().map {
            [
                "instruction_addr": "0x" + String($0.address, radix: 16),
                "image_addr": "0x" + String($0.load, radix: 16),
                "package": "/private/var/\($0.image)", "function": "<redacted>", "in_app": true,
            ]
        }
        let event: [String: Any] = [
            "event_id": "0123456789abcdef0123456789abcdef", "platform": "cocoa", "level": "fatal",
            "contexts": ["app": ["app_name": "HoldApp", "app_identifier": "com.example.HoldApp"]],
            "exception": ["values": [["type": "EXC_BAD_ACCESS", "thread_id": 99, "stacktrace": ["frames": frames]]]],
            "threads": ["values": [["id": 0, "crashed": true, "stacktrace": ["frames": frames]]]],
            "debug_meta": ["images": images],
        ]
        return [UInt8](try JSONSerialization.data(withJSONObject: event, options: [.prettyPrinted, .sortedKeys]))
    }
}
