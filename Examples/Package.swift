// swift-tools-version:6.1
import PackageDescription

/// Examples of the NetworkKitOpenAPI build plugin, applied the way an app's package applies it:
/// from a package that depends on NetworkKit. Each target holds an OpenAPI document (and an
/// optional `networkkit-openapi.yaml`); the plugin generates its Swift at build time.
///
/// `scripts/test` builds and tests this package, checks that the plugin's output for FixtureAPI
/// is the copy NetworkKit's own tests and `nk demo` use, and runs `swift package generate-model`.
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
        .package(name: "NetworkKit", path: "..", traits: ["CodeGeneration", "OpenAPIRuntime"]),
        // Apple's generator, whose build plugin makes the client of GeneratedClient/.
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
    ],
    targets: [
        // The fixture server's API, and excerpts of public APIs of different styles.
        openAPIExample("FixtureAPIExample", path: "FixtureAPI"),
        openAPIExample("PetStoreExample", path: "PetStore"),
        openAPIExample("PagedListExample", path: "PagedList"),
        openAPIExample("PaymentsExample", path: "Payments"),
        // A real public document at a fixed version: Apache Airflow's (OpenAPI 3.1, as FastAPI
        // writes it). Datadog's, 8.9 MB, is the package in LargeDocument/, built in a later stage.
        openAPIExample("AirflowExample", path: "Airflow"),
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
        // Requests and models of the generated code, for the constructs each example shows.
        .testTarget(
            name: "ExampleTests",
            dependencies: [
                "FixtureAPIExample", "PetStoreExample", "PagedListExample", "PaymentsExample", "AirflowExample",
                .product(name: "NetworkKit", package: "NetworkKit"),
            ],
            swiftSettings: strict
        ),
    ]
)
