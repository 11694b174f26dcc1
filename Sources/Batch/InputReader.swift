// InputReader: the one reader thread of a batch run. It walks the INPUTs in a fixed order
// (command-line order; folders recursively in sorted name order; archive members in stored
// order; `-` line by line), gives each file its output name (OutputPaths), keeps the files of
// this shard, drops those `--resume` finds done, reads each remaining file's bytes and hands
// them to the workers through the bounded channel. Because the order is fixed, every machine
// of a sharded run hands out the same names. Archives found inside folders are read as
// archives too; their members go under the archive's name without its extension. The output
// folder is skipped when it lies inside an input folder.

import Archives
import Foundation
import SymbolicateModel
import SystemSupport

/// One file for a worker: its bytes, where it came from, and where its output goes.
struct WorkItem: Sendable {
    /// Shown in the summary: the file's path, or an archive's path followed by the member's.
    var source: String
    /// Relative path of the output inside the destination.
    var outputName: String
    var bytes: [UInt8]
}

final class InputReader {
    private let configuration: BatchConfiguration
    private let channel: BoundedChannel<WorkItem>
    private let collector: SummaryCollector
    private let progress: InputProgress
    private var allocator: PathAllocator
    private var stopped = false
    /// The output folder, resolved, so that a walk over a folder containing it skips it.
    private let outputFolder: String?

    init(
        configuration: BatchConfiguration, channel: BoundedChannel<WorkItem>, collector: SummaryCollector,
        progress: InputProgress
    ) {
        self.configuration = configuration
        self.channel = channel
        self.collector = collector
        self.progress = progress
        self.allocator = PathAllocator(multipleInputs: configuration.multipleInputs)
        if case .directory(let folder) = configuration.destination {
            outputFolder = FileKind.realPath(folder)
        } else {
            outputFolder = nil
        }
    }

    /// Reads every input, then closes the channel so the workers finish.
    func run() {
        defer { channel.close() }
        for input in configuration.inputs {
            guard !stopped else { return }
            if input == "-" {
                while !stopped, let line = configuration.standardInputLines() {
                    let path = line.trimmingCharacters(in: " \t\r\n")
                    guard !path.isEmpty else { continue }
                    readPath(path, listed: true)
                }
            } else {
                readPath(input, listed: false)
            }
        }
    }

    /// A folder, an archive or a single file named on the command line or on stdin. A single
    /// file keeps its base name (command line) or its whole sanitized path (stdin list).
    private func readPath(_ path: String, listed: Bool) {
        let base = OutputPaths.inputBaseName(path)
        switch FileKind(path) {
        case .directory:
            walk(path, inputBase: base)
        case .file where OutputPaths.isArchiveName(path):
            readArchive(path, prefix: "", inputBase: base)
        case .file:
            let rel =
                listed
                ? OutputPaths.sanitize(path)
                : OutputPaths.sanitize(path).flatMap(PathParts.last)
            guard let rel else { return }
            readFile(path, rel: rel, inputBase: base)
        case .other, .missing:
            collector.recordInputError("\(path): no such file or folder, or not a regular file")
        }
    }

    /// Reads the files under `folder` in FolderWalk's order. Links to folders are passed over
    /// (the walk cannot loop), and so is the output folder.
    private func walk(_ folder: String, inputBase: String) {
        FolderWalk.walk(
            folder, options: .physical,
            unlistable: { path, error in
                collector.recordInputError("\(path): cannot list the folder: \(Folders.reason(error, at: path))")
            },
            passedOver: { path, relative, why in
                guard isInShard(relative) else { return }
                switch why {
                case .nameNotUTF8:
                    collector.recordUnreadable(
                        reason: "its name is not valid UTF-8 (shown repaired): rename it to read it", path: path)
                case .danglingLink:
                    collector.recordSkippedLink(reason: "a link to a file that does not exist", path: path)
                case .inaccessible(let error):
                    collector.recordUnreadable(
                        reason: "cannot be looked at: \(Errno(rawValue: error).description)", path: path)
                case .notARegularFile:
                    collector.recordSkippedLink(reason: "not a regular file (a device, pipe or socket)", path: path)
                }
            },
            visit: { entry in
                guard !stopped else { return .stop }
                switch entry.kind {
                case .folder:
                    if let outputFolder, FileKind.realPath(entry.path) == outputFolder { return .skip }
                case .file where OutputPaths.isArchiveName(entry.name):
                    readArchive(
                        entry.path, prefix: entry.folderPrefix + OutputPaths.inputBaseName(entry.name),
                        inputBase: inputBase)
                case .file:
                    readFile(entry.path, rel: entry.relativePath, inputBase: inputBase)
                }
                return .proceed
            })
    }

    private func readFile(_ path: String, rel: String, inputBase: String) {
        guard let name = admit(rel: rel, inputBase: inputBase, source: path) else { return }
        if let size = FileKind.size(path), size > configuration.maxReportSize {
            collector.recordUnreadable(
                reason: "larger than the \(configuration.maxReportSize >> 20) MiB limit for one report", path: path)
            return
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            collector.recordUnreadable(reason: "cannot be read (check its permissions)", path: path)
            return
        }
        send(WorkItem(source: path, outputName: name, bytes: [UInt8](data)))
    }

    /// Streams an archive's members to the workers. A member that cannot be read (a damaged
    /// header or damaged data, encrypted, too large) is counted as unreadable under its name and
    /// the archive goes on: the reader resumes a zip at the next member even where libarchive
    /// itself cannot (ArchiveReader+Resume). A member whose header is too damaged to give its
    /// name is named by its number and the member before it. Only an archive that cannot be
    /// read on at all (a .tar.gz whose compressed stream breaks) ends with an input error.
    private func readArchive(_ path: String, prefix: String, inputBase: String) {
        let startBytes = Int64(progress.bytesDone)
        let reader: ArchiveReader
        do {
            reader = try ArchiveReader(path: path, policy: Self.policy)
        } catch {
            collector.recordInputError("\(path): \(error.message)")
            return
        }
        defer { progress.setBytesDone(startBytes + reader.compressedBytesRead) }
        while !stopped {
            let member: ArchiveReader.Entry
            do {
                guard let next = try reader.next() else { return }
                member = next
            } catch {
                if error.fatal {
                    collector.recordInputError("\(path): \(error.message)")
                    return
                }
                // A member whose name is known belongs to one shard, as a readable one does.
                if let stored = error.member, let name = ArchiveNames.sanitize(stored), !name.isEmpty,
                    !isInShard(Self.relative(name, under: prefix))
                {
                    continue
                }
                collector.recordUnreadable(reason: Self.generic(error.message), path: Self.place(of: error, in: path))
                continue
            }
            progress.setBytesDone(startBytes + reader.compressedBytesRead)
            let memberPath = member.name
            guard member.type != .directory, !memberPath.isEmpty else { continue }
            let rel = Self.relative(memberPath, under: prefix)
            let source = path + "/" + memberPath
            guard member.type == .file else {
                // A link (symbolic, or a tar's hard link) or a special file is not read: counted, by its shard.
                if isInShard(rel) {
                    collector.recordSkippedLink(
                        reason: "a link or special file in the archive; only regular files are read", path: source)
                }
                continue
            }
            guard let name = admit(rel: rel, inputBase: inputBase, source: source) else { continue }
            if member.isEncrypted {
                collector.recordUnreadable(reason: "encrypted archive member", path: source)
                continue
            }
            if let size = member.size, size > configuration.maxReportSize {
                collector.recordUnreadable(
                    reason: "larger than the \(configuration.maxReportSize >> 20) MiB limit for one report",
                    path: source)
                continue
            }
            do {
                let bytes = try reader.readAll(limit: configuration.maxReportSize)
                send(WorkItem(source: source, outputName: name, bytes: bytes))
            } catch {
                collector.recordUnreadable(reason: reason(error), path: source)
            }
        }
    }

    /// Reports are read whatever their names (sanitized into output names), a damaged member is
    /// counted and the archive goes on, and each member is bounded by `maxReportSize` instead
    /// of limits on the whole archive.
    static let policy = ArchiveReader.Policy(names: .sanitize, memberErrors: .recoverable, limits: .none)

    /// Names a member whose header failed: by its name when known, else by its number and the
    /// member before it (`r.zip: member 6, after set/r084.crash`). A member without a name has
    /// no shard, so every shard names it.
    static func place(of error: ArchiveError, in path: String) -> String {
        if let member = error.member { return path + "/" + member }
        var place = path + ": member \(error.memberIndex ?? 0)"
        if let previous = error.previousMember { place += ", after " + previous }
        return place
    }

    /// The output name of a file at `rel`, or nil when the file is not for this run (another
    /// shard, or done by an earlier run with `--resume`) or its name cannot be written (counted
    /// as skipped, with the reason, under `source`). Names are handed out for every file,
    /// whatever its shard, so that all shards agree on them.
    private func admit(rel: String, inputBase: String, source: String) -> String? {
        let name = allocator.allocate(OutputPaths.outputName(rel, format: configuration.format), inputBase: inputBase)
        guard isInShard(rel) else { return nil }
        if configuration.resume, case .directory(let root) = configuration.destination,
            FileKind(root + "/" + name) == .file
        {
            collector.recordAlreadyDone(path: source)
            return nil
        }
        if case .directory = configuration.destination, let reason = OutputPaths.unwritableReason(name) {
            collector.recordSkippedName(reason: reason, path: source)
            return nil
        }
        return name
    }

    /// True when the file at `rel` is this run's: every file without `--shard`.
    private func isInShard(_ rel: String) -> Bool { configuration.shard?.contains(rel) ?? true }

    /// A member's path inside its input: below `prefix` (the archive's place), when there is one.
    private static func relative(_ name: String, under prefix: String) -> String {
        prefix.isEmpty ? name : prefix + "/" + name
    }

    private func send(_ item: WorkItem) {
        if !channel.send(item) { stopped = true }
    }

    /// Why a member could not be read, as the summary groups it.
    private func reason(_ error: ArchiveError) -> String {
        if error.code == .memberTooLarge {
            return "larger than the \(configuration.maxReportSize >> 20) MiB limit for one report"
        }
        return Self.generic(error.message)
    }

    /// libarchive messages that name a member number are grouped under one reason.
    static func generic(_ message: String) -> String {
        message.replacing(/member \d+/, with: "member")
    }
}
