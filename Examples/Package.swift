// swift-tools-version:6.1
import PackageDescription

/// NetworkKit's examples, in a package that depends on NetworkKit as an app's package does. Most
/// targets apply the NetworkKitOpenAPI build plugin: each holds an OpenAPI document (and an
/// optional `networkkit-openapi.yaml`) from which the plugin generates its Swift at build time.
/// The others show swift-openapi-generator's client on a NetworkKit `Service`, and the kit's
/// spans and metrics exported by swift-otel.
///
/// Datadog's document is committed gzipped (`third-party/datadog/datadog-v2-openapi.yaml.gz`, so
/// that it adds 1 MB, not 8.9 MB, to every checkout of NetworkKit): `scripts/test-examples`
/// unpacks it into `Datadog/` before it builds, and DatadogExample does not build without it.
/// That script builds and tests this package (TelemetryExampleTests in a process of its own),
/// checks that the plugin's output for FixtureAPI is the copy NetworkKit's own tests and
/// `nk demo` use and that swift-openapi-generator's plugin makes the client committed in
/// `Sources/FixtureOpenAPIClient`, and runs `swift package generate-model`. The tests that run
/// generated requests against the fixture server need `nk` built in the package above.
let strict: [SwiftSetting] = [.swiftLanguageMode(.v6), .enableUpcomingFeature("ExistentialAny")]

/// A target whose Swift the NetworkKitOpenAPI plugin generates from its OpenAPI document.
func openAPIExample(_ name: String, path: String) -> Target {
    .target(
        name: name,
        dependencies: [.product(name: "NetworkKit", package: "NetworkKit")],
        path: path,
        swiftSettings: strict,
        plugins: [.plugin(name: "NetworkKitOpenAPI", package: "NetworkKit")]
    )
}

let package = Package(
    name: "NetworkKitExamples",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    dependencies: [
        // Every trait, as the README's test command builds NetworkKit: CI builds this package in
        // the root's scratch folder (`scripts/test-examples --root-build`) and reuses those modules.
        .package(name: "NetworkKit", path: "..", traits: ["CodeGeneration", "NIO", "Observability", "OpenAPIRuntime", "ServiceLifecycle"]),
        // Apple's generator, whose build plugin makes the client of GeneratedClient/.
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        // OTLP over HTTP only: the gRPC exporter's packages are not fetched.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        // The OTLP/HTTP receiver of TelemetryExampleTests and the server its request goes to.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        // The fixture server's API, and excerpts of public APIs of different styles.
        openAPIExample("FixtureAPIExample", path: "FixtureAPI"),
        openAPIExample("PetStoreExample", path: "PetStore"),
        openAPIExample("PagedListExample", path: "PagedList"),
        openAPIExample("PaymentsExample", path: "Payments"),
        // Real public documents at fixed versions (third-party/README.md says where each comes
        // from): Apache Airflow's (OpenAPI 3.1, as FastAPI writes it), and Datadog's API v2
        // (OpenAPI 3.0, 8.9 MB, 1,661 operations), which the plugin mends and degrades where it
        // must, with warnings in the build log, and splits across files; its clean build takes
        // minutes.
        openAPIExample("AirflowExample", path: "Airflow"),
        openAPIExample("DatadogExample", path: "Datadog"),
        // A client made by swift-openapi-generator's build plugin, sending through a NetworkKit
        // Service (ServiceClientTransport); its document is the one of NetworkKit's
        // OpenAPIClientTests, which call the fixture server with the committed copy of this output.
        .target(
            name: "GeneratedClientExample",
            dependencies: [
                .product(name: "NetworkKit", package: "NetworkKit"),
                .product(name: "NetworkKitOpenAPIRuntime", package: "NetworkKit"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            path: "GeneratedClient",
            swiftSettings: strict,
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        // An app's telemetry through OpenTelemetry: swift-otel bootstrapped as the tracer and
        // metrics backend, exporting over OTLP/HTTP, and NetworkKit with the `Observability`
        // trait sending through `NIOTransport`, with nothing more in the app.
        .target(
            name: "TelemetryExample",
            dependencies: [
                .product(name: "NetworkKit", package: "NetworkKit"),
                .product(name: "NetworkKitNIO", package: "NetworkKit"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Telemetry",
            swiftSettings: strict
        ),
        // Requests and models of the generated code, for the constructs each example shows.
        .testTarget(
            name: "ExampleTests",
            dependencies: [
                "FixtureAPIExample", "PetStoreExample", "PagedListExample", "PaymentsExample", "AirflowExample",
                .product(name: "NetworkKit", package: "NetworkKit"),
            ],
            swiftSettings: strict
        ),
        // Datadog's generated Swift compiles, and its requests are built and run against the
        // fixture server.
        .testTarget(
            name: "DatadogTests",
            dependencies: ["DatadogExample", .product(name: "NetworkKit", package: "NetworkKit")],
            swiftSettings: strict
        ),
        // What swift-otel exports, received by an OTLP/HTTP receiver the test starts: the span
        // tree of a request retried once, and the `traceparent` each attempt carried. It
        // bootstraps the process's tracer and metrics backend, which would also export the
        // other targets' requests: it runs in a process of its own.
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
