// swift-tools-version:6.1
import PackageDescription

/// An app's telemetry through OpenTelemetry: swift-otel bootstrapped as the tracer and metrics
/// backend, exporting over OTLP/HTTP, and NetworkKit with the `Observability` trait sending
/// through `NIOTransport`, with nothing more in the app. The test receives what is exported with
/// an OTLP/HTTP receiver it starts, and checks the span tree of a request that was retried once.
/// `scripts/test-opentelemetry` builds and tests it; CI runs that after the README's test
/// command, since swift-otel's clean build takes minutes.
let strict: [SwiftSetting] = [.swiftLanguageMode(.v6), .enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "OpenTelemetryExample",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    dependencies: [
        .package(name: "NetworkKit", path: "../..", traits: ["NIO", "Observability"]),
        // OTLP over HTTP only: the gRPC exporter's packages are not fetched.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        // The test's OTLP/HTTP receiver and the server the example's request goes to.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        .target(
            name: "TelemetryExample",
            dependencies: [
                .product(name: "NetworkKit", package: "NetworkKit"),
                .product(name: "NetworkKitNIO", package: "NetworkKit"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TelemetryExampleTests",
            dependencies: [
                "TelemetryExample",
                .product(name: "NetworkKit", package: "NetworkKit"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
    ]
)
