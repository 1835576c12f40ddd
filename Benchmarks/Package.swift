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
        .executableTarget(
            name: "CurlewBench",
            dependencies: [
                .product(name: "CurlewAgent", package: "Curlew"),
                .product(name: "CurlewSessions", package: "Curlew"),
                .product(name: "CurlewTUI", package: "Curlew"),
                .product(name: "CCurl", package: "Curlew"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
