// swift-tools-version: 6.0
// A separate package so the clients Curlew is compared with never become Curlew's dependencies.
import PackageDescription

let package = Package(
    name: "CurlewBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Curlew", path: ".."),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        // What a client run measures and the line it reports it in, for the harness and the peers.
        .target(name: "BenchMeasurement"),
        // The harness: nginx, every client and scenario, the report. It runs each client as a child.
        .executableTarget(
            name: "CurlewBench",
            dependencies: [
                "BenchMeasurement",
                .product(name: "CurlewAgent", package: "Curlew"),
                .product(name: "CurlewSessions", package: "Curlew"),
                .product(name: "CurlewTUI", package: "Curlew"),
                .product(name: "CCurl", package: "Curlew"),
            ]
        ),
        // AsyncHTTPClient as a program of its own: `make bench` builds it, and the smoke run in
        // `make test` builds the harness alone, without compiling SwiftNIO and BoringSSL.
        .executableTarget(
            name: "AsyncHTTPClientBench",
            dependencies: ["BenchMeasurement", .product(name: "AsyncHTTPClient", package: "async-http-client")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
