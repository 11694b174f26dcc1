// libmicrohttpd, libarchive, libcurl, libnettle, libdwarf and libelf are loaded with dlopen by the
// command that needs them, not at process start, and SQLite and zstd are linked statically
// (start-up instructions: Benchmarks/startup.sh): the dynamic loader's own trace (LD_DEBUG=libs)
// shows none of them for `--help` or for a report answered from the store, shows libarchive once
// an archive is opened and libelf once an ELF file is. A library that cannot be loaded is an error
// that names it and the package to install, never a trap; the SYMBOLICATE_LIB* variables point the
// loader at a missing file.

import Foundation
import Testing

@Suite("Libraries loaded on first use")
struct LazyLibraryTests {
    /// A file that starts like a zip (so the import opens it with libarchive) and is not one.
    static func fakeZip() throws -> String {
        let path = NSTemporaryDirectory() + "lazy-\(UUID().uuidString).zip"
        try Data([0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 0x5A, count: 60)).write(to: URL(fileURLWithPath: path))
        return path
    }

    static let loadedOnFirstUse = [
        "libarchive", "libmicrohttpd", "libcurl", "libnettle", "libdwarf", "libelf", "libsqlite3", "libzstd",
    ]

    @Test func helpLoadsNoneOfThem() throws {
        let result = try CLI.run(["--help"], environment: ["LD_DEBUG": "libs"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("libc.so.6"), "LD_DEBUG=libs traces the libraries loaded")
        for library in Self.loadedOnFirstUse {
            #expect(!result.stderr.contains(library), "\(library) is loaded at start-up")
        }
    }

    @Test func aReportFromTheStoreLoadsNoneOfThem() throws {
        let store = NSTemporaryDirectory() + "lazy-store-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: store) }
        let imported = try CLI.run(["import", "--store", store, Paths.samples + "/build/ios-arm64-dwarf5"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let result = try CLI.run(
            ["--store", store, Paths.samples + "/reports/HoldApp-ios-arm64-dwarf5.crash"],
            environment: ["LD_DEBUG": "libs"])
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("ViewController.viewDidLoad()"), "the report was symbolicated")
        for library in Self.loadedOnFirstUse {
            #expect(!result.stderr.contains(library), "\(library) is loaded for a report from the store")
        }
    }

    @Test func anELFFileLoadsLibelfAndAMissingOneIsNamed() throws {
        let elf = CLI.executable
        let store = NSTemporaryDirectory() + "lazy-store-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: store) }
        let loaded = try CLI.run(["lookup", "-o", elf, "0x1000"], environment: ["LD_DEBUG": "libs"])
        #expect(loaded.stderr.contains("libelf.so.1"), "\(loaded.stderr.suffix(400))")
        let missing = try CLI.run(
            ["lookup", "-o", elf, "0x1000"], environment: ["SYMBOLICATE_LIBELF": "/nonexistent/libelf.so.1"])
        #expect(missing.status == 1, "\(missing.stderr)")
        #expect(missing.stderr.contains("cannot load libelf"), "\(missing.stderr)")
        #expect(missing.stderr.contains("/nonexistent/libelf.so.1"), "the loader's reason is given")
        #expect(missing.stderr.contains("libelf1"), "the package to install is named")
    }

    @Test func anArchiveLoadsLibarchive() throws {
        let zip = try Self.fakeZip()
        let store = NSTemporaryDirectory() + "lazy-store-\(UUID().uuidString)"
        defer {
            unlink(zip)
            try? FileManager.default.removeItem(atPath: store)
        }
        let result = try CLI.run(["import", "--store", store, zip], environment: ["LD_DEBUG": "libs"])
        #expect(result.stderr.contains("libarchive.so.13"))
        #expect(!result.stderr.contains("libmicrohttpd"))
    }

    @Test func aMissingLibarchiveIsNamed() throws {
        let zip = try Self.fakeZip()
        let store = NSTemporaryDirectory() + "lazy-store-\(UUID().uuidString)"
        defer {
            unlink(zip)
            try? FileManager.default.removeItem(atPath: store)
        }
        let result = try CLI.run(
            ["import", "--store", store, zip], environment: ["SYMBOLICATE_LIBARCHIVE": "/nonexistent/libarchive.so.13"])
        // import answers 65 when any of its files failed; a trap would be 134 or a signal.
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("cannot load libarchive"), "\(result.stderr)")
        #expect(result.stderr.contains("apt-get install libarchive13"), "\(result.stderr)")
        #expect(result.stderr.contains("/nonexistent/libarchive.so.13"), "the loader's reason is given")
    }

    @Test func aMissingLibmicrohttpdIsNamed() throws {
        let store = NSTemporaryDirectory() + "lazy-store-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: store) }
        let result = try CLI.run(
            ["serve", "--store", store, "--listen", "127.0.0.1:0"],
            environment: ["SYMBOLICATE_LIBMICROHTTPD": "/nonexistent/libmicrohttpd.so.12"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("cannot load libmicrohttpd"), "\(result.stderr)")
        #expect(result.stderr.contains("apt-get install libmicrohttpd12"), "\(result.stderr)")
    }
}
