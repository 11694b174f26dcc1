// swift-tools-version:6.0
// symbolicate: crash-report symbolication for Linux.
// The targets follow the data: a report is parsed (Reports), its images' symbol files are read
// (ObjectFiles) or found in the index (Store), frames are looked up (Symbolication), and the
// report is written back; the CLI and the HTTP server sit on top. Each C library is one
// system-library target under Sources/C.
import PackageDescription

let package = Package(
    name: "symbolicate",
    products: [
        .executable(name: "symbolicate", targets: ["symbolicate"]),
        // The libraries, for the fuzz targets in Fuzz/ (a package of its own: normal builds never see them).
        .library(
            name: "SymbolicateLibraries",
            targets: ["SymbolicateModel", "Reports", "ObjectFiles", "Store", "Symbolication", "Server", "Batch"]),
    ],
    targets: [
        // C libraries from Debian, one target each.
        .systemLibrary(name: "CDwarf", path: "Sources/C/CDwarf"),
        .systemLibrary(name: "CElf", path: "Sources/C/CElf"),
        .systemLibrary(name: "CSQLite", path: "Sources/C/CSQLite"),
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/C/CMicroHTTPD"),
        .systemLibrary(name: "CArchive", path: "Sources/C/CArchive"),
        .systemLibrary(name: "CZlib", path: "Sources/C/CZlib"),
        .target(
            name: "CDemangle", path: "Sources/C/CDemangle",
            linkerSettings: [.linkedLibrary("stdc++")]),

        // The data flow: model -> reports -> object files / store -> symbolication.
        .target(name: "SymbolicateModel", path: "Sources/Model"),
        .target(name: "Reports", dependencies: ["SymbolicateModel"], path: "Sources/Reports"),
        .target(
            name: "ObjectFiles", dependencies: ["SymbolicateModel", "CDwarf", "CElf", "CZlib"],
            path: "Sources/ObjectFiles"),
        .target(
            name: "Store", dependencies: ["SymbolicateModel", "ObjectFiles", "CSQLite", "CArchive"],
            path: "Sources/Store"),
        .target(
            name: "Symbolication",
            dependencies: ["SymbolicateModel", "Reports", "ObjectFiles", "Store", "CDemangle"],
            path: "Sources/Symbolication"),
        .target(
            name: "Server",
            dependencies: [
                "Symbolication", "Store", "Reports", "SymbolicateModel", "CMicroHTTPD", "CSQLite", "CZlib", "CArchive",
            ],
            path: "Sources/Server"),
        .target(
            name: "Batch", dependencies: ["Symbolication", "Store", "Reports", "SymbolicateModel", "CArchive"],
            path: "Sources/Batch"),
        .target(
            name: "CLI",
            dependencies: [
                "SymbolicateModel", "Reports", "ObjectFiles", "Store", "Symbolication", "Server", "Batch", "CArchive",
            ],
            path: "Sources/CLI"),
        .executableTarget(name: "symbolicate", dependencies: ["CLI"], path: "Sources/symbolicate"),
        // In-process lookup benchmark (Benchmarks/run.sh drives it next to the peer tools).
        .executableTarget(
            name: "symbolicate-bench", dependencies: ["Store", "ObjectFiles", "Symbolication", "SymbolicateModel"],
            path: "Benchmarks/LookupBench"),

        .testTarget(name: "ReportsTests", dependencies: ["Reports", "SymbolicateModel"]),
        .testTarget(name: "ObjectFilesTests", dependencies: ["ObjectFiles", "SymbolicateModel"]),
        .testTarget(name: "StoreTests", dependencies: ["Store", "ObjectFiles", "SymbolicateModel"]),
        .testTarget(
            name: "SymbolicationTests",
            dependencies: ["Symbolication", "Reports", "ObjectFiles", "Store", "SymbolicateModel"]),
        .testTarget(
            name: "ServerTests", dependencies: ["Server", "Symbolication", "Store", "Reports", "SymbolicateModel", "CZlib"]),
        .testTarget(name: "BatchTests", dependencies: ["Batch", "Symbolication", "Store", "Reports", "SymbolicateModel"]),
        .testTarget(name: "CLITests", dependencies: ["CLI"]),
    ],
    swiftLanguageModes: [.v6]
)
