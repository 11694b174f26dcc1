// swift-tools-version:6.0
// symbolicate: crash-report symbolication for Linux.
// The targets follow the data: a report is parsed (Reports), its images' symbol files are read
// (ObjectFiles) or found in the index (Store, whose per-build files are BuildFiles), frames are
// looked up (Symbolication), and the report is written back; the CLI, the HTTP server and batch
// sit on top. SystemSupport holds what every part needs from the system (outputs, temporary
// files, folders and their walk, the thread budget). Each C library is one
// system-library target under Sources/C.
import PackageDescription

let package = Package(
    name: "symbolicate",
    products: [
        .executable(name: "symbolicate", targets: ["symbolicate"]),
        // The libraries, for the fuzz targets in Fuzz/ (a package of its own: normal builds never see them).
        .library(
            name: "SymbolicateLibraries",
            targets: [
                "SymbolicateModel", "SystemSupport", "Reports", "ObjectFiles", "BuildFiles", "Store", "Import",
                "Symbolication", "Server", "Batch", "ObjectStorage", "Compression",
            ]),
    ],
    targets: [
        // C libraries from Debian, one target each. SQLite, zlib and zstd are linked from their
        // static archives (their licences allow it): a process starts without binding their symbols.
        .systemLibrary(name: "CSQLite", path: "Sources/C/CSQLite"),
        .systemLibrary(name: "CZlib", path: "Sources/C/CZlib"),
        .systemLibrary(name: "CZstd", path: "Sources/C/CZstd"),
        .systemLibrary(name: "CProcess", path: "Sources/C/CProcess"),
        .target(
            name: "CDemangle", path: "Sources/C/CDemangle",
            linkerSettings: [.linkedLibrary("stdc++")]),
        // libcurl, libmicrohttpd, libarchive, libnettle, libdwarf and libelf are dlopen'd by these
        // shims on first use, not linked: only bucket stores, `serve`, archives, digests and object
        // files need them, and loading costs start-up. They share one loader (CLibraryLoader): the
        // dlopen flags, the override variables, the messages.
        .target(name: "CLibraryLoader", path: "Sources/C/CLibraryLoader"),
        .target(name: "CCurl", dependencies: ["CLibraryLoader"], path: "Sources/C/CCurl"),
        .target(name: "CMicroHTTPD", dependencies: ["CLibraryLoader"], path: "Sources/C/CMicroHTTPD"),
        .target(name: "CArchive", dependencies: ["CLibraryLoader"], path: "Sources/C/CArchive"),
        .target(name: "CNettle", dependencies: ["CLibraryLoader"], path: "Sources/C/CNettle"),
        .target(name: "CDwarf", dependencies: ["CLibraryLoader"], path: "Sources/C/CDwarf"),
        .target(name: "CElf", dependencies: ["CLibraryLoader"], path: "Sources/C/CElf"),
        // sched_getaffinity and sync_file_range, which Swift's Glibc module does not declare (they
        // need _GNU_SOURCE).
        .target(name: "CLinux", path: "Sources/C/CLinux"),

        // The data flow: model -> reports -> object files / store -> symbolication.
        .target(name: "SymbolicateModel", path: "Sources/Model"),
        // SHA-256, SHA-1 and HMAC-SHA-256 through Debian's libnettle.
        .target(name: "Digest", dependencies: ["CNettle"], path: "Sources/Digest"),
        // What every part needs from the system and nothing else: errno as an error, writing a named
        // output or a temporary file safely, creating folders, walking a folder, the thread budget.
        .target(
            name: "SystemSupport", dependencies: ["SymbolicateModel", "CLinux"], path: "Sources/SystemSupport"),
        .target(name: "Reports", dependencies: ["SymbolicateModel"], path: "Sources/Reports"),
        // zlib: compressed ELF sections, gzip request bodies, and the checksums of .tar.gz archives;
        // zstd: zstd-compressed ELF sections.
        .target(name: "Compression", dependencies: ["CZlib", "CZstd"], path: "Sources/Compression"),
        .target(
            name: "ObjectFiles", dependencies: ["SymbolicateModel", "SystemSupport", "CDwarf", "CElf", "Compression"],
            path: "Sources/ObjectFiles"),
        // .zip / .tar / cpio, read and written: the one target that talks to libarchive.
        .target(
            name: "Archives", dependencies: ["SymbolicateModel", "CArchive", "Compression"], path: "Sources/Archives"),
        // The SQLite wrapper and the build-file format: one build's symbols in one file, written and
        // queried in place. The store's index and the server's stored reports both use it.
        .target(name: "BuildFiles", dependencies: ["SymbolicateModel", "CSQLite"], path: "Sources/BuildFiles"),
        // The index of builds, in a folder or a bucket with a local cache: publishing a build file,
        // finding and opening one, removal, verify and gc, and the originals kept beside them.
        .target(
            name: "Store",
            dependencies: ["SymbolicateModel", "SystemSupport", "BuildFiles", "ObjectStorage", "Digest", "Compression"],
            path: "Sources/Store"),
        // Paths, bundles, archives and dyld shared caches → ObjectFiles → build files → Store; the
        // originals kept at import and reindexed from; debuginfod fetches, imported on arrival.
        .target(
            name: "Import",
            dependencies: [
                "SymbolicateModel", "SystemSupport", "ObjectFiles", "Archives", "BuildFiles", "Store", "ObjectStorage",
                "Digest",
            ],
            path: "Sources/Import"),
        .target(
            name: "Symbolication",
            dependencies: ["SymbolicateModel", "Reports", "ObjectFiles", "Store", "Import", "CDemangle", "Digest"],
            path: "Sources/Symbolication"),
        .target(
            name: "Server",
            dependencies: [
                "Symbolication", "Store", "Import", "BuildFiles", "SystemSupport", "Reports", "ObjectFiles", "SymbolicateModel",
                "CMicroHTTPD", "Digest", "CProcess", "ObjectStorage", "Compression", "Archives",
            ],
            path: "Sources/Server", exclude: ["WebPage"]),
        // Makes the web page's files (Sources/Server/WebPage) into one document, WebPageDocument.swift
        // (`make webpage-source`). Not a build-tool plugin: fuzz and sanitizer builds would build it
        // with their instrumentation, which a host tool cannot link.
        .executableTarget(name: "embed-web-page", path: "Sources/BuildTools/EmbedWebPage"),
        .target(
            name: "Batch",
            dependencies: [
                "Symbolication", "Store", "SystemSupport", "Reports", "SymbolicateModel", "Archives", "Digest",
                "ObjectStorage",
            ],
            path: "Sources/Batch"),
        .target(
            name: "CLI",
            dependencies: [
                "SymbolicateModel", "SystemSupport", "Reports", "ObjectFiles", "Store", "Import", "Symbolication", "Server",
                "Batch", "Uploads",
            ],
            path: "Sources/CLI"),
        // S3-compatible object storage over libcurl: Signature V4, retries, listings.
        .target(
            name: "ObjectStorage", dependencies: ["SymbolicateModel", "Digest", "CCurl"], path: "Sources/ObjectStorage"),
        // `symbolicate upload`: the client of the chunked upload protocol `serve` speaks.
        .target(
            name: "Uploads",
            dependencies: [
                "SymbolicateModel", "SystemSupport", "ObjectFiles", "Archives", "Store", "Import", "ObjectStorage",
                "Digest", "Compression",
            ],
            path: "Sources/Uploads"),
        // Start-up is most of a one-report run's cost: the executable links the C++ runtime
        // statically (Sources/C/StaticLibstdcxx) with lld, and packs its 80,000 relative
        // relocations (DT_RELR, glibc 2.36 and later) so the loader applies them from a bitmap.
        .executableTarget(
            name: "symbolicate", dependencies: ["CLI"], path: "Sources/symbolicate",
            linkerSettings: [
                .unsafeFlags([
                    "-use-ld=lld", "-L", Context.packageDirectory + "/Sources/C/StaticLibstdcxx",
                    "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                ])
            ]),
        // In-process lookup benchmark (Benchmarks/run.sh drives it next to the peer tools).
        .executableTarget(
            name: "symbolicate-bench", dependencies: ["Store", "ObjectFiles", "SymbolicateModel"],
            path: "Benchmarks/LookupBench"),

        // What the test targets share: the process runner, the repository root and fixture
        // folders, a seeded generator, zips built to order, and the tags (.slow, .server, .corpus).
        .target(
            name: "TestSupport", dependencies: ["ObjectStorage", "ObjectFiles", "Compression"],
            path: "Tests/TestSupport"),
        .testTarget(name: "ArchivesTests", dependencies: ["Archives", "Compression", "TestSupport"]),
        .testTarget(name: "DigestTests", dependencies: ["Digest", "TestSupport"]),
        .testTarget(name: "SystemSupportTests", dependencies: ["SystemSupport", "TestSupport"]),
        .testTarget(name: "ReportsTests", dependencies: ["Reports", "SymbolicateModel", "TestSupport"]),
        .testTarget(name: "ObjectFilesTests", dependencies: ["ObjectFiles", "SymbolicateModel", "TestSupport"]),
        .testTarget(
            name: "StoreTests",
            dependencies: [
                "Store", "Import", "BuildFiles", "SystemSupport", "ObjectFiles", "SymbolicateModel", "ObjectStorage",
                "Digest", "TestSupport",
            ],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "SymbolicationTests",
            dependencies: [
                "Symbolication", "Reports", "ObjectFiles", "Store", "Import", "SymbolicateModel", "TestSupport",
            ]),
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "Server", "Symbolication", "Store", "Import", "BuildFiles", "SymbolicateModel", "ObjectFiles", "ObjectStorage",
                "Compression", "TestSupport", "Archives",
            ]),
        .testTarget(
            name: "BatchTests",
            dependencies: [
                "Batch", "Symbolication", "Reports", "SymbolicateModel", "SystemSupport", "Archives", "ObjectFiles",
                "ObjectStorage", "TestSupport",
            ]),
        .testTarget(name: "CLITests", dependencies: ["CLI", "ObjectStorage", "TestSupport"]),
        .testTarget(
            name: "ObjectStorageTests", dependencies: ["ObjectStorage", "Digest", "SymbolicateModel", "TestSupport"],
            exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)

// A concrete generic type (a Dictionary keyed by String, a Set of UInt8) is made at run time
// from its mangled name by default, and the runtime then finds each conformance the type needs
// (String: Hashable) by scanning every conformance record of the binary, about 0.35 M
// instructions a conformance, once per process. Calling the type's metadata accessor with the
// conformances the compiler already knows skips the scan; it only costs code size.
for target in package.targets where target.type != .system {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])
        ]
}
