// The name of a bare Mach-O or ELF file uploaded without one (`curl --data-binary @HoldApp` sends
// no file name; `?filename=`, a form's file name and Content-Disposition do). The store names a
// single binary after its file, and an executable holds no name of its own, so without this the
// build would be listed as `upload`: the name is the image name the stored reports give the
// file's UUID (the reports that wait for it), else the upload stays `upload`.

import Foundation
import ObjectFiles

enum UploadName {
    /// The image name stored reports give a UUID of the file at `path`, or nil (not an object
    /// file, no UUID, no stored report naming it).
    static func fromReports(_ path: String, context: ServiceContext) -> String? {
        guard let slices = try? ObjectFile.slices(atPath: path), !slices.isEmpty else { return nil }
        let uuids = Set(slices.map { $0.info.uuid.uuidString.uppercased() })
        guard let entries = try? context.reports.missingSummary(limit: 10_000) else { return nil }
        return entries.first { uuids.contains($0.uuid.uppercased()) }?.name
    }

    /// True when the request gives no file name of its own.
    static func isUnnamed(_ request: HTTPRequest) -> Bool {
        (request.query["filename"] ?? request.formFileName ?? "").isEmpty
            && !(request.header("content-disposition") ?? "").contains("filename=")
    }
}
