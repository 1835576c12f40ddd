// swift-tools-version: 6.1
import PackageDescription

/// Curlew's own modules are optimized in debug builds too. `make run` and `make test` build the
/// debug configuration, so the interface and the CLI users start, and the tests, are the debug
/// build: unoptimized, the log browser indexed twenty times slower than measured in release.
/// Dependencies keep SwiftPM's defaults; tests still see internals (`-enable-testing` stays).
let optimizedInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "Curlew",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "curlew", targets: ["curlew"]),
        // The fault soak (`make soak`).
        .executable(name: "curlew-soak", targets: ["CurlewSoak"]),
        .library(name: "CurlewAgent", targets: ["CurlewAgent"]),
        .library(name: "CurlewSessions", targets: ["CurlewSessions"]),
        .library(name: "CurlewWorkspace", targets: ["CurlewWorkspace"]),
        .library(name: "CurlewDemoServer", targets: ["CurlewDemoServer"]),
        .library(name: "CurlewSigning", targets: ["CurlewSigning"]),
        .library(name: "CurlewTUI", targets: ["CurlewTUI"]),
        // The libcurl shim, for the benchmark's bare libcurl loop.
        .library(name: "CCurl", targets: ["CCurl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        // Without its default trait (loading external references), which Curlew does not use.
        .package(url: "https://github.com/mattpolzin/OpenAPIKit.git", from: "6.4.0", traits: []),
    ],
    targets: [
        // Swift's Mutex, made visible to ThreadSanitizer in `make sanitize` builds.
        .target(name: "CurlewLocking", swiftSettings: optimizedInDebug),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // No pkg-config: ncursesw's flags are two -D macros SwiftPM refuses (with a warning on
        // every build), which shim.h sets itself; the libraries are linked by the module map.
        .systemLibrary(name: "CNCurses"),
        .target(
            name: "CurlewTUI",
            dependencies: ["CurlewAgent", "CurlewSessions", "CurlewWorkspace", "CurlewLocking", "CNCurses", .product(name: "DequeModule", package: "swift-collections")],
            swiftSettings: optimizedInDebug
        ),
        .target(
            name: "CurlewTransport",
            dependencies: ["CCurl", "CurlewLocking", .product(name: "Logging", package: "swift-log")],
            swiftSettings: optimizedInDebug
        ),
        .target(
            name: "CurlewAgent",
            dependencies: ["CurlewTransport", "CurlewLocking", .product(name: "Logging", package: "swift-log")],
            swiftSettings: optimizedInDebug
        ),
        .target(name: "CurlewSessions", dependencies: ["CurlewAgent", "CurlewLocking"], swiftSettings: optimizedInDebug),
        // OpenAPI 3.0 and 3.1 import, apart so the rest of the interchange code does not build OpenAPIKit.
        .target(name: "CurlewOpenAPI", dependencies: [
            "CurlewAgent", "CurlewSessions", "CurlewWorkspace", .product(name: "Yams", package: "Yams"),
            .product(name: "OpenAPIKit", package: "OpenAPIKit"), .product(name: "OpenAPIKit30", package: "OpenAPIKit"),
            .product(name: "OpenAPIKitCompat", package: "OpenAPIKit"),
        ]),
        // Workspace files: config, environments, secrets, named requests with expectations, groups.
        .target(name: "CurlewWorkspace", dependencies: ["CurlewAgent", "CurlewSessions", "CurlewLocking", .product(name: "Yams", package: "Yams")],
                swiftSettings: optimizedInDebug),
        // Request signers that need cryptography, kept apart so the agent itself does not link it.
        .target(name: "CurlewSigning", dependencies: ["CurlewAgent", .product(name: "Crypto", package: "swift-crypto")]),
        .target(
            name: "CurlewDemoServer",
            dependencies: [
                "CurlewLocking",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .executableTarget(
            name: "curlew",
            dependencies: [
                "CurlewAgent", "CurlewSessions", "CurlewDemoServer", "CurlewTUI", "CurlewLocking", "CurlewSigning", "CurlewWorkspace", "CurlewOpenAPI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // The demo workspace the interface opens on the embedded demo.
            resources: [.copy("Demo")],
            swiftSettings: optimizedInDebug
        ),
        .executableTarget(
            name: "CurlewSoak",
            dependencies: [
                "CurlewAgent", "CurlewSessions", "CurlewDemoServer", "CurlewLocking",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The benchmark harness (`make bench`; `make test` runs it briefly): built here, with the
        // modules the tests build, so the test run compiles Curlew once. The peers Curlew is
        // compared with are built by the package in Benchmarks/, never Curlew's dependencies.
        .target(name: "BenchMeasurement", path: "Benchmarks/Sources/BenchMeasurement"),
        .executableTarget(
            name: "CurlewBench",
            dependencies: ["BenchMeasurement", "CurlewAgent", "CurlewSessions", "CurlewTUI", "CCurl"],
            path: "Benchmarks/Sources/CurlewBench"
        ),
        .target(
            name: "CurlewTestSupport",
            dependencies: ["CurlewDemoServer", "CurlewAgent", "CurlewLocking"],
            path: "Tests/CurlewTestSupport"
        ),
        .testTarget(name: "CurlewTransportTests", dependencies: ["CurlewLocking", "CurlewTransport", "CurlewDemoServer", "CurlewTestSupport"]),
        .testTarget(name: "CurlewAgentTests", dependencies: [
            "CurlewLocking", "CurlewAgent", "CurlewTransport", "CurlewSessions", "CurlewSigning", "CurlewTestSupport", .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .testTarget(name: "CurlewSessionsTests", dependencies: ["CurlewSessions", "CurlewAgent", "CurlewLocking", "CurlewTestSupport"]),
        .testTarget(name: "CurlewWorkspaceTests", dependencies: ["CurlewWorkspace", "CurlewOpenAPI", "CurlewAgent", "CurlewSessions", "CurlewLocking", "CurlewTestSupport"]),
        .testTarget(name: "CurlewDemoServerTests", dependencies: ["CurlewDemoServer", "CurlewAgent", "CurlewLocking", "CurlewTestSupport"]),
        .testTarget(
            name: "CurlewTUITests",
            dependencies: ["CurlewTUI", "CurlewAgent", "CurlewSessions", "CurlewWorkspace", "CurlewTestSupport"],
            resources: [.copy("Goldens")]
        ),
        .testTarget(name: "curlewTests", dependencies: ["CurlewLocking", "curlew", "CurlewSessions", "CurlewDemoServer", "CurlewTUI", "CurlewTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets, one per parser of untrusted input (README, Reliability and security). Declared only when
// CURLEW_FUZZ=1, as `make fuzz` and the smoke run in `make test` set it, since they build with
// -sanitize=fuzzer,address, which supplies their main.
if Context.environment["CURLEW_FUZZ"] == "1" {
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzJSON", ["CurlewAgent"]),
        ("FuzzFilter", ["CurlewAgent", "CurlewSessions"]),
        ("FuzzSessionLog", ["CurlewAgent", "CurlewSessions"]),
        ("FuzzHeaders", ["CurlewAgent", "CurlewTransport"]),
        ("FuzzCompose", ["CurlewAgent", "CurlewTransport"]),
        ("FuzzRedaction", ["CurlewAgent"]),
        ("FuzzPipeline", ["CurlewAgent"]),
        ("FuzzStream", ["CurlewAgent"]),
        ("FuzzWorkspace", ["CurlewWorkspace"]),
        ("FuzzCurlImport", ["CurlewAgent", "CurlewSessions"]),
        ("FuzzMultipart", ["CurlewAgent", "CurlewSessions"]),
        ("FuzzImport", ["CurlewAgent", "CurlewSessions"]),
        ("FuzzOpenAPI", ["CurlewOpenAPI"]),
    ]
    // Only the fuzz targets and the modules they use, found through the targets' dependencies:
    // one `swift build` then compiles all of them, in parallel, and nothing else (the interface,
    // the demo server's TLS) is built with the fuzzer.
    func moduleNames(_ dependencies: [Target.Dependency]) -> [String] {
        dependencies.compactMap { dependency in
            switch dependency {
            case .byNameItem(let name, _), .targetItem(let name, _): name
            default: nil
            }
        }
    }
    var fuzzed = Set<String>()
    var pending = fuzzTargets.flatMap { moduleNames($0.dependencies) }
    while let name = pending.popLast() {
        guard fuzzed.insert(name).inserted, let target = package.targets.first(where: { $0.name == name }) else { continue }
        pending += moduleNames(target.dependencies)
    }
    package.targets.removeAll { !fuzzed.contains($0.name) }
    package.products.removeAll()
    package.targets.append(.target(name: "FuzzSupport", path: "Fuzz/Support"))
    for target in fuzzTargets {
        package.products.append(.executable(name: target.name, targets: [target.name]))
        package.targets.append(.executableTarget(
            name: target.name, dependencies: target.dependencies + ["FuzzSupport"], path: "Fuzz/Targets/\(target.name)",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ))
    }
}
