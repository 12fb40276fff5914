// swift-tools-version:6.1
import PackageDescription

/// Strict Swift 6 everywhere; `ExistentialAny` keeps `any` explicit.
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "NetworkKit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "NetworkKit", targets: ["NetworkKit"]),
        .executable(name: "nk", targets: ["nk"]),
        .executable(name: "nk-bench", targets: ["nk-bench"]),
    ],
    dependencies: [
        // Test, demo and benchmark only: the NetworkKit library itself depends on none of these.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
    ],
    targets: [
        .target(name: "NetworkKit", swiftSettings: strict),
        .target(
            name: "FixtureServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "nk",
            dependencies: [
                "NetworkKit", "FixtureServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "nk-bench",
            dependencies: ["NetworkKit", "FixtureServer"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "NetworkKitTests",
            dependencies: ["NetworkKit", "FixtureServer"],
            swiftSettings: strict
        ),
    ]
)
