// swift-tools-version:6.0
// Fuzz targets for symbolicate: a package of its own, beside the main one, so that `swift build`
// and `swift test` at the top never build them and never need the fuzzer runtime. Each target is
// a libFuzzer entry point (`LLVMFuzzerTestOneInput`) over one way untrusted bytes come in: crash
// reports, symbol files, HTTP requests, archives, a bucket server's answers. Build and run them
// with `make fuzz` (see README.md): scripts/fuzz.sh passes `-sanitize=fuzzer,address` to every
// module, so the whole library is coverage-instrumented, and `-enable-testing` so the targets can
// reach internal checks and readers. Each target's main.swift hands its entry point to libFuzzer's
// driver.
import PackageDescription

let package = Package(
    name: "symbolicate-fuzz",
    dependencies: [.package(name: "symbolicate", path: "..")],
    targets: [
        .target(name: "CFuzzer", path: "Sources/CFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzer"], path: "Sources/FuzzSupport"),
        .executableTarget(
            name: "FuzzReports",
            dependencies: ["FuzzSupport", .product(name: "SymbolicateLibraries", package: "symbolicate")],
            path: "Sources/FuzzReports"),
        .executableTarget(
            name: "FuzzObjectFiles",
            dependencies: ["FuzzSupport", .product(name: "SymbolicateLibraries", package: "symbolicate")],
            path: "Sources/FuzzObjectFiles"),
        .executableTarget(
            name: "FuzzHTTP",
            dependencies: ["FuzzSupport", .product(name: "SymbolicateLibraries", package: "symbolicate")],
            path: "Sources/FuzzHTTP"),
        .executableTarget(
            name: "FuzzArchives",
            dependencies: ["FuzzSupport", .product(name: "SymbolicateLibraries", package: "symbolicate")],
            path: "Sources/FuzzArchives"),
        .executableTarget(
            name: "FuzzObjectStorage",
            dependencies: ["FuzzSupport", .product(name: "SymbolicateLibraries", package: "symbolicate")],
            path: "Sources/FuzzObjectStorage"),
    ],
    swiftLanguageModes: [.v6]
)
