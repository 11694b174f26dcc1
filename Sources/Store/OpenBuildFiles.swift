// OpenBuildFiles: the build files a store (a folder or a bucket) keeps open between lookups,
// keyed by file and import time, so a re-import, here or in another process, changes the key
// and a superseded file is never served. Bounded: past `capacity` the least recently used one
// is dropped (its connections close when the last lookup holding it ends). Safe to share
// between threads; two threads that open the same build at once keep the first one stored.

import BuildFiles
import Foundation
import SymbolicateModel

final class OpenBuildFiles: Sendable {
    private struct Key: Hashable {
        var file: String
        var importedAt: Date

        init(_ row: StoredBuild) {
            file = row.file
            importedAt = row.importedAt
        }
    }

    private struct Entries {
        var open: [String: (key: Key, source: BuildFileSource, used: UInt64)] = [:]
        var clock: UInt64 = 0
    }

    let capacity: Int
    private let entries = Locked(Entries())

    init(capacity: Int = 64) {
        self.capacity = capacity
    }

    /// The open file of `row`, unless it is not open or was opened for another import of it.
    func source(for row: StoredBuild) -> BuildFileSource? {
        entries.withLock { entries in
            guard let entry = entries.open[row.file], entry.key == Key(row) else { return nil }
            entries.clock += 1
            entries.open[row.file]?.used = entries.clock
            return entry.source
        }
    }

    /// Keeps `source` open for `row` unless another thread kept one for the same import first;
    /// returns the one kept.
    func keep(_ source: BuildFileSource, for row: StoredBuild) -> BuildFileSource {
        entries.withLock { entries in
            let key = Key(row)
            entries.clock += 1
            if let entry = entries.open[row.file], entry.key == key {
                entries.open[row.file]?.used = entries.clock
                return entry.source
            }
            entries.open[row.file] = (key, source, entries.clock)
            if entries.open.count > capacity, let oldest = entries.open.min(by: { $0.value.used < $1.value.used }) {
                entries.open[oldest.key] = nil
            }
            return source
        }
    }

    /// Closes the files of removed builds.
    func forget(_ rows: [StoredBuild]) {
        entries.withLock { entries in for row in rows { entries.open[row.file] = nil } }
    }

    /// Closes every open file of `uuid` (a build the catalog no longer lists: removed elsewhere)
    /// and returns their names.
    func forget(uuid: BuildID) -> [String] {
        entries.withLock { entries in
            let files = entries.open.filter { $0.value.source.build.uuid == uuid }.map(\.key)
            for file in files { entries.open[file] = nil }
            return files
        }
    }
}
