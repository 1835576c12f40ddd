// swift-tools-version: 6.0
// The clients Curlew is compared with, in a package of their own so they never become Curlew's
// dependencies. The harness that runs them (CurlewBench) is built by Curlew's own package.
import PackageDescription

let package = Package(
    name: "CurlewBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        // What a client run measures and the line it reports it in: the harness's own sources,
        // compiled here too for the peer that reports in the same form.
        .target(name: "BenchMeasurement"),
        // AsyncHTTPClient as a program of its own, which the harness runs as a child.
        .executableTarget(
            name: "AsyncHTTPClientBench",
            dependencies: ["BenchMeasurement", .product(name: "AsyncHTTPClient", package: "async-http-client")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
