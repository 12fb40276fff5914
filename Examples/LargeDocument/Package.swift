// swift-tools-version:6.1
import PackageDescription

/// Datadog's public API v2 description (OpenAPI 3.0, 8.9 MB, 1,661 operations; from
/// datadog-api-client 2.62.0, see NOTICE) through the NetworkKitOpenAPI build plugin, as an app's
/// package would apply it: the plugin mends and degrades what it must, with warnings in the build
/// log, and splits the Swift across files. The document is committed gzipped
/// (`datadog-v2-openapi.yaml.gz`, so that it adds 1 MB, not 8.9 MB, to every checkout of
/// NetworkKit); `scripts/test-large-document` unpacks it into the target's folder, then builds
/// and tests this package. CI runs that after the README's test command, since the clean build
/// takes minutes.
let strict: [SwiftSetting] = [.swiftLanguageMode(.v6), .enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "LargeDocument",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    dependencies: [
        .package(name: "NetworkKit", path: "../..", traits: ["CodeGeneration"]),
    ],
    targets: [
        .target(
            name: "DatadogExample",
            dependencies: [.product(name: "NetworkKit", package: "NetworkKit")],
            swiftSettings: strict,
            plugins: [.plugin(name: "NetworkKitOpenAPI", package: "NetworkKit")]
        ),
        .testTarget(
            name: "DatadogTests",
            dependencies: ["DatadogExample", .product(name: "NetworkKit", package: "NetworkKit")],
            swiftSettings: strict
        ),
    ]
)
