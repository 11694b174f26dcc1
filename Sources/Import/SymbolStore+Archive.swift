// Importing from .zip / .tar / .tar.gz archives, streamed: members are read in order, recognized
// by their first bytes (Mach-O, ELF, or a nested archive, one level deep), and each object file is
// kept in memory when small or spooled to a locked temporary file in the store's `tmp/` when large,
// so a 2 GB dSYM never has to fit in RAM. Nothing else in the archive is extracted.
//
// An archive is imported as a whole: its builds are written to temporary files while it is read
// and published only once the whole archive has been read without error. A damaged archive, an
// unsafe member path or an expansion bomb therefore leaves the store exactly as it was. A member
// that is a damaged object file is a failure of that member only. (Archives with more than
// `maxPendingBuilds` new builds publish in batches of that size, to bound open files.)

import Archives
import Foundation
import ObjectFiles
import Store
import SymbolicateModel
import SystemSupport

extension SymbolStore {
    static let maxPendingBuilds = 256
    static let maxArchiveDepth = 1

    /// What reading an archive produced before anything is published.
    struct ArchiveHarvest {
        var pending: [PendingBuild] = []
        var present: [(BuildInfo, String)] = []
        var failures: [(String, any Error)] = []
        var slices = 0
        /// dyld shared cache files (main and subcaches), spooled to files, by member name.
        var cacheMembers: [String: (member: String, file: TemporaryFile)] = [:]
    }

    func importArchive(_ path: String, display: String, depth: Int, run: inout ImportRun) {
        var harvest = ArchiveHarvest()
        do {
            try harvestArchive(path, display: display, depth: depth, into: &harvest, run: &run)
        } catch {
            harvest.pending.removeAll()  // their temporary files go with them
            run.handled += harvest.slices
            run.fail(display, error)
            run.report(item: display)
            return
        }
        publish(&harvest, run: &run)
        run.report(item: display)
    }

    /// Publishes what a harvest holds and files every outcome in the run's summary.
    private func publish(_ harvest: inout ArchiveHarvest, run: inout ImportRun) {
        run.handled += harvest.slices
        harvest.slices = 0
        for (info, source) in harvest.present { run.file(.alreadyPresent, info, source: source) }
        for pending in harvest.pending {
            do {
                run.file(try commit(pending, mode: .new), pending.build, source: pending.source)
            } catch {
                run.fail("\(pending.source) (\(pending.build.arch))", error)
            }
        }
        for (member, error) in harvest.failures { run.fail(member, error) }
        harvest = ArchiveHarvest()
    }

    private func harvestArchive(
        _ path: String, display: String, depth: Int, into harvest: inout ArchiveHarvest, run: inout ImportRun
    ) throws {
        let reader = try ArchiveReader.forImport(path: path, limits: archiveLimits)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while let entry = try reader.nextForImport() {
            if depth == 0 {
                run.bytesDone = reader.compressedBytesRead
                run.bytesTotal = reader.compressedBytesTotal
            }
            guard entry.type == .file else { continue }
            let member = "\(display):\(entry.name)"
            let baseName = PathParts.last(entry.name) ?? entry.name
            let spool = MemberSpool(directory: temporaryDirectory, memoryLimit: archiveLimits.memberMemoryLimit)
            try spool.fill(from: reader, buffer: &buffer, upTo: 4096)
            let prefix = spool.prefix(4096)
            if ObjectFile.looksLikeObjectFile(prefix: prefix) {
                try spool.fill(from: reader, buffer: &buffer, upTo: nil)
                harvestObject(spool, member: member, name: baseName, into: &harvest)
                run.report(item: member)
            } else if DyldCache.looksLikeCache(prefix: prefix) {
                try spool.fill(from: reader, buffer: &buffer, upTo: nil, forceFile: true)
                if let file = spool.file { harvest.cacheMembers[entry.name] = (member, file) }
            } else if ArchiveReader.looksLikeArchive(prefix: prefix), depth < SymbolStore.maxArchiveDepth {
                try spool.fill(from: reader, buffer: &buffer, upTo: nil, forceFile: true)
                guard let file = spool.file else { continue }
                var inner = ArchiveHarvest()
                do {
                    try harvestArchive(file.path, display: member, depth: depth + 1, into: &inner, run: &run)
                    harvest.pending += inner.pending
                    harvest.present += inner.present
                    harvest.failures += inner.failures
                    harvest.slices += inner.slices
                } catch {
                    harvest.failures.append((member, error))
                    harvest.slices += inner.slices
                }
            }
            if harvest.pending.count >= SymbolStore.maxPendingBuilds { publish(&harvest, run: &run) }
        }
        harvestCaches(into: &harvest, run: &run)
        if depth == 0 { run.bytesDone = run.bytesTotal }
    }

    /// Reads the slices of one object-file member into pending builds.
    /// `name` is the member's file name: the image name, which a spooled copy's name is not.
    private func harvestObject(_ spool: MemberSpool, member: String, name: String, into harvest: inout ArchiveHarvest) {
        let slices: [ObjectSlice]
        do {
            if let file = spool.file {
                slices = try ObjectFile.slices(atPath: file.path)
            } else {
                slices = try ObjectFile.slices(bytes: spool.bytes, path: member)
            }
        } catch {
            harvest.failures.append((member, error))
            return
        }
        for slice in slices {
            var info = slice.info
            info.name = name
            harvestBuild(info, member: member, into: &harvest) { try prepare(slice, source: member, name: name) }
        }
    }

    /// Adds one build read from `member` to the harvest unless the store, or the harvest, already
    /// has it at least as good; `prepare` writes its file only when it is needed.
    func harvestBuild(
        _ info: BuildInfo, member: String, into harvest: inout ArchiveHarvest, prepare: () throws -> PendingBuild
    ) {
        harvest.slices += 1
        do {
            if try hasBuild(info) {
                harvest.present.append((info, member))
                return
            }
            if let i = harvest.pending.firstIndex(where: {
                $0.build.uuid == info.uuid && $0.build.arch == info.arch
            }) {
                if harvest.pending[i].build.kind >= info.kind {
                    harvest.present.append((info, member))
                    return
                }
                // Debug info found after the binary in the same archive: keep only the better one.
                let replaced = harvest.pending.remove(at: i)
                harvest.present.append((replaced.build, replaced.source))
            }
            harvest.pending.append(try prepare())
        } catch {
            harvest.failures.append(("\(member) (\(info.arch))", error))
        }
    }
}

/// One archive member's data: in memory while small, in a locked temporary file once it grows
/// past `memoryLimit` (or when a file is needed, as for nested archives).
final class MemberSpool {
    let directory: String
    let memoryLimit: Int
    private(set) var bytes: [UInt8] = []
    private(set) var file: TemporaryFile?
    private var head: [UInt8] = []
    private var finished = false

    init(directory: String, memoryLimit: Int) {
        self.directory = directory
        self.memoryLimit = memoryLimit
    }

    /// The first `count` bytes read so far.
    func prefix(_ count: Int) -> [UInt8] { file == nil ? Array(bytes.prefix(count)) : Array(head.prefix(count)) }

    /// Reads the entry until `limit` bytes are held (nil: to its end).
    func fill(from reader: ArchiveReader, buffer: inout [UInt8], upTo limit: Int?, forceFile: Bool = false) throws {
        if forceFile, file == nil { try moveToFile() }
        while !finished {
            let held = file.map { Int($0.size) } ?? bytes.count
            if let limit, held >= limit { return }
            let want = limit.map { min(buffer.count, $0 - held) } ?? buffer.count
            let n = try buffer.withUnsafeMutableBytes {
                try reader.readForImport(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<want]))
            }
            if n == 0 {
                finished = true
                return
            }
            if let file {
                try buffer.withUnsafeBytes { try file.write(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            } else {
                bytes += buffer[0..<n]
                if bytes.count > memoryLimit { try moveToFile() }
            }
        }
    }

    private func moveToFile() throws {
        let file = try TemporaryFile(in: directory, suffix: ".spool")
        try bytes.withUnsafeBytes { try file.write($0) }
        head = Array(bytes.prefix(4096))
        bytes = []
        self.file = file
    }
}
