// swift-tools-version:6.1
import PackageDescription

/// Strict Swift 6 everywhere; `ExistentialAny` keeps `any` explicit.
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

/// A fuzz target under `Fuzz/` (see scripts/fuzz): a libFuzzer entry point when built with
/// `-sanitize=fuzzer -DNK_FUZZ`, otherwise a program that replays a corpus (the tests run it).
func fuzzTarget(_ name: String, path: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: ["FuzzSupport"] + dependencies, path: path, swiftSettings: strict)
}

/// A product that the code generators link when the consumer enables the `CodeGeneration` trait.
func codeGeneration(_ product: String, package: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: ["CodeGeneration"]))
}

/// What the code generators' tools link. Without the `CodeGeneration` trait a tool is built as a
/// short program that says which trait to enable. SwiftPM leaves a package out of a consumer's
/// graph when every product dependency on it has a trait condition the consumer does not meet; a
/// condition on a dependency between this package's own targets does not prune what lies behind
/// that target, so `NetworkKitCodegen`'s product dependencies carry the condition too.
let codeGenerationTool: [Target.Dependency] = [
    "CodeGenerationTrait",
    .target(name: "NetworkKitCodegen", condition: .when(traits: ["CodeGeneration"])),
    codeGeneration("ArgumentParser", package: "swift-argument-parser"),
]

/// A product that the core links when the consumer enables the `Observability` trait.
func observability(_ product: String, package: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: ["Observability"]))
}

/// A product that NetworkKitNIO links when the consumer enables the `NIO` trait.
func nio(_ product: String, package: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: ["NIO"]))
}

let package = Package(
    name: "NetworkKit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "NetworkKit", targets: ["NetworkKit"]),
        .library(name: "NetworkKitImage", targets: ["NetworkKitImage"]),
        // The transport on SwiftNIO's AsyncHTTPClient. Its SwiftNIO graph is fetched and built
        // only for a consumer that enables the `NIO` trait; without it the module holds a marker
        // whose use fails to compile with a message that names the trait.
        .library(name: "NetworkKitNIO", targets: ["NetworkKitNIO"]),
        // A programmable in-memory transport for apps' unit tests; it links NetworkKit only.
        .library(name: "NetworkKitTesting", targets: ["NetworkKitTesting"]),
        // A swift-openapi-runtime `ClientTransport` that sends a generated client's calls through a
        // `Service`. swift-openapi-runtime comes only with the `OpenAPIRuntime` trait; without it
        // the module holds a marker whose use names the trait.
        .library(name: "NetworkKitOpenAPIRuntime", targets: ["NetworkKitOpenAPIRuntime"]),
        // Code generation: OpenAPI documents to NetworkKit requests at build time, and models from
        // a sample response on demand. Their tools reach OpenAPIKit, Yams and swift-argument-parser
        // only under the `CodeGeneration` trait; without it they say which trait to enable.
        .plugin(name: "NetworkKitOpenAPI", targets: ["NetworkKitOpenAPI"]),
        .plugin(name: "GenerateModel", targets: ["GenerateModel"]),
        // `nk`, `nk-bench`, the fixture server and the tests are targets that no product reaches,
        // so an app that adds NetworkKit fetches none of their packages; here, `swift run nk` runs.
    ],
    traits: [
        .trait(name: "NIO", description: "The NetworkKitNIO product's transport on SwiftNIO's AsyncHTTPClient."),
        .trait(name: "CodeGeneration",
               description: "The tools of the NetworkKitOpenAPI and GenerateModel plugins (OpenAPIKit, Yams, swift-argument-parser)."),
        .trait(name: "Observability",
               description: "Spans through swift-distributed-tracing and metrics through swift-metrics for every request, on any transport."),
        .trait(name: "ServiceLifecycle",
               description: "Service conforms to swift-service-lifecycle's Service: run in a ServiceGroup, it shuts down gracefully on its signal."),
        .trait(name: "OpenAPIRuntime",
               description: "The NetworkKitOpenAPIRuntime product's ClientTransport, for clients made by swift-openapi-generator (swift-openapi-runtime)."),
    ],
    dependencies: [
        // The core logs through swift-log (a small package with no dependencies of its own).
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        // The core's spans and metrics, under the `Observability` trait (the tests' in-memory
        // tracer and metrics backend come from the same packages).
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        // NetworkKitNIO's transport (and nothing else), under the `NIO` trait.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.100.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.30.0"),
        // The CONNECT handshake of a WebSocket through an HTTP proxy (AsyncHTTPClient already
        // depends on it).
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // HTTP/2 frames: NetworkKitNIO reads GOAWAY and stream resets to tell requests a server
        // never processed (AsyncHTTPClient already depends on it); the fixture's HTTP/2 server.
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        // Test, demo and benchmark only (and the tools' argument parser, under `CodeGeneration`):
        // no product reaches these without a trait, so an app does not fetch them.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        // The core's ServiceGroup conformance, under the `ServiceLifecycle` trait; it also stops
        // the fixture server gracefully (Hummingbird already depends on it).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        // The TLS fixtures' certificates, made at test time (a CA, leaves, a client CA).
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        // The fixture server parses multipart uploads with a real parser, not the kit's encoder.
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.1"),
        // NetworkKitOpenAPIRuntime's `ClientTransport` (under the `OpenAPIRuntime` trait), and its
        // server-sent-events decoding as the streaming benchmarks' peer (nk-bench). The other maintained Swift SSE parser, mattt/EventSource 1.1.1, does not
        // build on Linux (it calls `URLSession.bytes`, which FoundationNetworking lacks).
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        // The core's vocabulary for requests and header fields (`HTTPRequest`, `HTTPFields`).
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.7.0"),
        // swift-openapi-runtime's own transports, the peers of ServiceClientTransport (nk-bench only).
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession.git", from: "1.4.0"),
        // `swift package generate-documentation` (scripts/docs); a plugin, linked into nothing.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The code generators' readers of OpenAPI documents and YAML (build tools only, under the
        // `CodeGeneration` trait). OpenAPIKit without its default trait: external references are
        // not loaded, and it builds faster.
        .package(url: "https://github.com/mattpolzin/OpenAPIKit.git", from: "6.4.0", traits: []),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
    ],
    targets: [
        // System libraries, found through pkg-config.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CBrotli", pkgConfig: "libbrotlidec", providers: [.apt(["libbrotli-dev"]), .brew(["brotli"])]),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng16", providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg-dev"]), .brew(["jpeg-turbo"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"]), .brew(["webp"])]),
        // setjmp/longjmp error handling for libjpeg and libpng's classic API, which Swift cannot call.
        .target(name: "CImageShims", dependencies: ["CJPEG", "CPNG"]),
        // The 1/8-scale JPEG decoder: steps split into slices that NetworkKitImage runs on Dispatch's threads.
        .target(name: "CJPEGEighth", dependencies: ["CJPEG"]),

        // The core stays lean: Foundation, zlib, libbrotli, libzstd, swift-log and swift-http-types; swift-distributed-tracing and
        // swift-metrics with the `Observability` trait only, swift-service-lifecycle with the
        // `ServiceLifecycle` trait only.
        .target(
            name: "NetworkKit",
            dependencies: [
                "CZlib", "CBrotli", "CZstd", .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
                observability("Tracing", package: "swift-distributed-tracing"),
                observability("CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["ServiceLifecycle"])),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "NetworkKitImage",
            dependencies: ["NetworkKit", "CPNG", "CJPEG", "CWebP", "CImageShims", "CJPEGEighth"],
            swiftSettings: strict
        ),
        // The SwiftNIO transport: a separate product whose SwiftNIO graph comes with the `NIO` trait.
        .target(
            name: "NetworkKitNIO",
            dependencies: [
                "NetworkKit",
                nio("AsyncHTTPClient", package: "async-http-client"),
                nio("NIOCore", package: "swift-nio"),
                nio("NIOPosix", package: "swift-nio"),
                nio("NIOHTTP1", package: "swift-nio"),
                nio("NIOConcurrencyHelpers", package: "swift-nio"),
                nio("NIOSSL", package: "swift-nio-ssl"),
                nio("NIOTLS", package: "swift-nio"),
                nio("NIOHTTP2", package: "swift-nio-http2"),
                // WebSocket frames (RFC 6455), for the WebSocket connections.
                nio("NIOWebSocket", package: "swift-nio"),
                nio("NIOExtras", package: "swift-nio-extras"),
                // SOCKS5 for WebSockets (AsyncHTTPClient's requests use it already).
                nio("NIOSOCKS", package: "swift-nio-extras"),
                // SHA-256 of a server's public key, for pinning.
                nio("Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),

        // The stub transport for apps' tests: NetworkKit and nothing else (no test framework).
        .target(name: "NetworkKitTesting", dependencies: ["NetworkKit"], swiftSettings: strict),

        // The ClientTransport for swift-openapi-generator's clients: a separate product whose
        // package comes with the `OpenAPIRuntime` trait.
        .target(
            name: "NetworkKitOpenAPIRuntime",
            dependencies: [
                "NetworkKit",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPIRuntime"])),
            ],
            swiftSettings: strict
        ),

        // The fixture server's client as swift-openapi-generator makes it from openapi.yaml, for
        // the OpenAPIClientTests and the articles' samples. Its Generated/ folder is the generator's
        // output, committed; scripts/test-examples checks it against the generator's build plugin.
        .target(
            name: "FixtureOpenAPIClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            exclude: ["openapi.yaml", "openapi-generator-config.yaml"],
            swiftSettings: strict
        ),

        // A real HTTP server on 127.0.0.1 for tests, the demo and benchmarks.
        .target(
            name: "FixtureServer",
            dependencies: [
                // Its own encoders of every content coding, apart from the kit's (FixtureCodings.swift).
                "CZlib", "CBrotli", "CZstd",
                // Plays the stub's answers over the wire (the conformance scenarios).
                "NetworkKitTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                // The HTTPS fixture of the trust tests.
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                // The raw TCP server whose canned answers no HTTP framework would send.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // The HTTP/2 fixture that rotates its connections (GOAWAY, stream resets).
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // The WebSocket fixture (WebSocketServer), on SwiftNIO's own server upgrader.
                .product(name: "NIOWebSocket", package: "swift-nio"),
                // The SOCKS5 proxy fixture (SOCKSProxy), on swift-nio-extras' server handshake.
                .product(name: "NIOSOCKS", package: "swift-nio-extras"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "Logging", package: "swift-log"),
                // The TLS fixtures' test CA and certificates (TestCertificates.make()).
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "nk",
            dependencies: [
                "NetworkKit", "NetworkKitImage", "NetworkKitNIO", "FixtureServer", "FixtureAPI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "nk-bench",
            dependencies: [
                "NetworkKit", "NetworkKitImage", "NetworkKitNIO", "NetworkKitTesting", "FixtureServer", "CJPEG", "CPNG", "CWebP",
                // The C libraries' own decode, the codings benchmark's baseline.
                "CBrotli", "CZstd",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                // A generated client on ServiceClientTransport against it on the runtime's own transports.
                "NetworkKitOpenAPIRuntime", "FixtureOpenAPIClient",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                // The WebSocket benchmarks' bare client.
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // The observability benchmarks' tracer and metrics backend.
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strict
        ),
        // The code generators: a library (unit-tested), the tools the plugins run, and the plugins.
        // One JSON GET for scripts/request-path's coverage runs.
        .executableTarget(name: "nk-request-probe", dependencies: ["NetworkKit"], swiftSettings: strict),
        .target(
            name: "NetworkKitCodegen",
            dependencies: [
                codeGeneration("OpenAPIKit", package: "OpenAPIKit"),
                codeGeneration("OpenAPIKit30", package: "OpenAPIKit"),
                codeGeneration("OpenAPIKitCompat", package: "OpenAPIKit"),
                codeGeneration("Yams", package: "Yams"),
            ],
            swiftSettings: strict
        ),
        // What a tool built without the trait runs: a message naming the trait.
        .target(name: "CodeGenerationTrait", swiftSettings: strict),
        .executableTarget(
            name: "nk-openapi-gen",
            dependencies: codeGenerationTool,
            swiftSettings: strict
        ),
        .executableTarget(
            name: "nk-model-gen",
            dependencies: codeGenerationTool,
            swiftSettings: strict
        ),
        .plugin(
            name: "NetworkKitOpenAPI",
            capability: .buildTool(),
            dependencies: ["nk-openapi-gen"],
            path: "Plugins/NetworkKitOpenAPI"
        ),
        .plugin(
            name: "GenerateModel",
            capability: .command(
                intent: .custom(verb: "generate-model",
                                description: "Writes Codable structs inferred from a sample JSON response."),
                permissions: [.writeToPackageDirectory(reason: "generate-model writes the Swift file of the models it inferred.")]
            ),
            dependencies: ["nk-model-gen"],
            path: "Plugins/GenerateModel"
        ),

        // The fixture server's API as the OpenAPI plugin generates it (for the tests and `nk demo`).
        // The targets that apply the plugin are in the package under Examples/: SwiftPM builds the
        // tools of every build plugin applied in a package graph, so a target here that applied it
        // would make each user of NetworkKit build OpenAPIKit, Yams and the generator.
        .target(name: "FixtureAPI", dependencies: ["NetworkKit"], swiftSettings: strict),

        // Fuzz targets: the parsers of what a server sends (scripts/fuzz; Fuzz/Corpus holds the seeds
        // and every input that once crashed, replayed by FuzzCorpusTests).
        .target(name: "FuzzSupport", path: "Fuzz/Support", swiftSettings: strict),
        fuzzTarget("fuzz-json", path: "Fuzz/JSON", ["NetworkKit"]),
        // The content decoders' fuzzing, one target per library: zlib, libbrotli, libzstd.
        .target(name: "FuzzInflating", dependencies: ["FuzzSupport", "NetworkKit"], path: "Fuzz/Inflating", swiftSettings: strict),
        fuzzTarget("fuzz-inflate", path: "Fuzz/Inflate", ["FuzzInflating"]),
        fuzzTarget("fuzz-brotli", path: "Fuzz/Brotli", ["FuzzInflating"]),
        fuzzTarget("fuzz-zstd", path: "Fuzz/Zstd", ["FuzzInflating"]),
        fuzzTarget("fuzz-multipart", path: "Fuzz/Multipart", ["NetworkKit", .product(name: "MultipartKit", package: "multipart-kit")]),
        fuzzTarget("fuzz-downloads", path: "Fuzz/Downloads", ["NetworkKit"]),
        fuzzTarget("fuzz-images", path: "Fuzz/Images", ["NetworkKit", "NetworkKitImage"]),
        fuzzTarget("fuzz-streams", path: "Fuzz/Streams", ["NetworkKit"]),

        .testTarget(
            name: "NetworkKitTests",
            dependencies: [
                "NetworkKit", "NetworkKitNIO", "NetworkKitTesting", "FixtureServer", "CZlib",
                .product(name: "Logging", package: "swift-log"),
                // HTTP/2 error codes and stream IDs, for the NIO transport's reading of stream closures.
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                // Frames for the WebSocket state machine's tables.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                // The observability tests' tracer and metrics backend.
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                // The shutdown tests' ServiceGroup.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The WebSocket tests' Python peer, run as a program, not built.
            exclude: ["Peers"],
            swiftSettings: strict
        ),
        // The client swift-openapi-generator makes for the fixture server, calling it through
        // ServiceClientTransport, on both transports and on the stub.
        .testTarget(
            name: "OpenAPIClientTests",
            dependencies: [
                "NetworkKit", "NetworkKitNIO", "NetworkKitTesting", "NetworkKitOpenAPIRuntime", "FixtureServer",
                "FixtureOpenAPIClient",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strict
        ),
        // The DocC articles' code, compiled, and a test that the articles show it word for word.
        .testTarget(
            name: "DocumentationTests",
            dependencies: [
                "NetworkKit", "NetworkKitImage", "NetworkKitNIO", "NetworkKitTesting", "FixtureAPI",
                "NetworkKitOpenAPIRuntime", "FixtureOpenAPIClient",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "NetworkKitImageTests",
            dependencies: ["NetworkKit", "NetworkKitImage", "NetworkKitNIO", "CImageShims", "CZlib", "FixtureServer"],
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
        // The generators: golden files (compiled here), errors, model inference, the fixture API
        // end to end against the fixture server, and the tools run as SwiftPM runs them.
        .testTarget(
            name: "NetworkKitCodegenTests",
            dependencies: [
                "NetworkKitCodegen", "NetworkKit", "FixtureServer", "FixtureAPI", "nk-openapi-gen", "nk-model-gen",
            ],
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
    ]
)
