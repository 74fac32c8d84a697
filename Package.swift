// swift-tools-version: 6.1
import PackageDescription

/// Settings every target shares: Swift 6 language mode with complete concurrency checking,
/// explicit existentials and imports that are visible only where they are declared.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "iap-pipeline",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "iap", targets: ["iap"]),
        .executable(name: "iap-dev", targets: ["iap-dev"]),
        .executable(name: "iap-intake", targets: ["iap-intake"]),
        .executable(name: "iap-verify", targets: ["iap-verify"]),
        .executable(name: "iap-match", targets: ["iap-match"]),
        .executable(name: "iap-grant", targets: ["iap-grant"]),
        .executable(name: "iap-state", targets: ["iap-state"]),
        .executable(name: "iap-confirm", targets: ["iap-confirm"]),
        .executable(name: "iap-api", targets: ["iap-api"]),
        .executable(name: "iap-reconcile", targets: ["iap-reconcile"]),
        .library(name: "Kafka", targets: ["Kafka"]),
        .library(name: "Redis", targets: ["Redis"]),
        .library(name: "Pipeline", targets: ["Pipeline"]),
        .library(name: "AppStoreModels", targets: ["AppStoreModels"]),
        .library(name: "AppStore", targets: ["AppStore"]),
        .library(name: "AppStoreSimulator", targets: ["AppStoreSimulator"]),
        .library(name: "Contracts", targets: ["Contracts"]),
        .library(name: "Purchases", targets: ["Purchases"]),
        .library(name: "Gateway", targets: ["Gateway"]),
        .library(name: "Settings", targets: ["Settings"]),
        .library(name: "Hosting", targets: ["Hosting"]),
        .library(name: "Topology", targets: ["Topology"]),
        .library(name: "ProductCatalog", targets: ["ProductCatalog"]),
        .library(name: "Basics", targets: ["Basics"]),
        /// The fuzz targets' checks, for the Fuzz package (Fuzz/README.md); not shipped.
        .library(name: "FuzzChecks", targets: ["FuzzChecks"]),
        .executable(name: "iap-gateway", targets: ["iap-gateway"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.3.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.2.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/swift-otel/swift-w3c-trace-context.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
    ],
    targets: [
        // MARK: C libraries (apt providers; `make setup` installs them)
        .systemLibrary(
            name: "CRdKafka",
            pkgConfig: "rdkafka",
            providers: [.apt(["librdkafka-dev"]), .brew(["librdkafka"])]
        ),
        .systemLibrary(
            name: "CHiredis",
            pkgConfig: "hiredis",
            providers: [.apt(["libhiredis-dev"]), .brew(["hiredis"])]
        ),
        /// The system libssl/libcrypto, for `rediss://` (decision D25): hiredis 0.14.1 has no TLS.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),

        // MARK: Basics
        /// Value types every layer shares (`OpenEnumeration`, the `Duration` conversions): the
        /// standard library only, so any module may depend on it.
        .target(name: "Basics", swiftSettings: strictSettings),
        /// Child processes that see SIGTERM as deployed ones do and whose exit is never missed:
        /// the local `redis-server`, the local stack's workers, the tools tests run.
        .target(name: "Processes", dependencies: ["Basics"], swiftSettings: strictSettings),

        // MARK: Adapters
        .target(
            name: "Kafka",
            dependencies: [
                "Basics",
                "CRdKafka",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Redis",
            dependencies: [
                "Basics",
                "CHiredis",
                "COpenSSL",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Local stand-ins for the adapters
        /// What dev, benchmarks and tests run instead of a real cluster and a managed Redis:
        /// librdkafka's mock cluster (`KafkaMockCluster`) and a `redis-server` child
        /// (`LocalRedisServer`). Out of `Kafka` and `Redis` so that no production module links
        /// them; `DependencyClosureTests` holds that.
        .target(
            name: "LocalServices",
            dependencies: [
                "Basics",
                "CRdKafka",
                "Kafka",
                "Redis",
                "Processes",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Trace context
        /// W3C trace context across Kafka hops (decision D42): the `traceparent` header carried
        /// from the first publish through every stage, a tracer that propagates it (no span is
        /// exported), and the Kafka-header carrier for swift-distributed-tracing.
        .target(
            name: "Traces",
            dependencies: [
                "Kafka",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Apple
        /// Apple's signed payloads as values: the transaction, renewal, notification and app
        /// transaction models with their open enumerations, `AppStoreEnvironment`, `Timestamp`,
        /// and the unverified JWS split (`UnverifiedJWS`). Foundation and `Basics` only, so the
        /// contracts and the rules get Apple's vocabulary without its HTTP clients.
        .target(name: "AppStoreModels", dependencies: ["Basics"], swiftSettings: strictSettings),
        /// Apple's services and trust: JWS verification, the Server API and verifyReceipt
        /// clients, receipts, the classification of Apple's answers.
        .target(
            name: "AppStore",
            dependencies: [
                "Basics",
                "AppStoreModels",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            resources: [.copy("Resources/AppleRootCA-G3.cer")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "AppStoreSimulator",
            dependencies: [
                "Basics",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Contracts
        /// Every topic's event type, the reason codes, the event codec (`EventDecoder`,
        /// `EventEncoder` and the hand-written JSON of decision D17) and every business key
        /// (`BusinessKeys.swift`). The one owner of the wire format: no Kafka, Redis or runtime.
        .target(
            name: "Contracts",
            dependencies: [
                "Basics",
                "AppStoreModels",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Domain
        /// The intake/verify/match/grant rules over the `Contracts` events, as plain code: no
        /// Kafka, Redis or runtime imports (docs/architecture.md's rules; decision D9).
        .target(
            name: "Purchases",
            dependencies: [
                "Basics",
                "AppStore",
                "AppStoreModels",
                "Contracts",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Settings
        /// The one settings layer (environment, optional file, defaults): `Setting`,
        /// `SettingsReader`, `SettingsError`, `SettingsCatalog`. A leaf, so the pipeline file and
        /// anything else that reads a key need not link the host's HTTP server and metrics.
        .target(
            name: "Settings",
            dependencies: [
                "Basics",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSettings
        ),

        /// Every setting of every executable, declared here (`HostKeys`, `StageKeys`, …) and listed in one
        /// `SettingsCatalog` (`SettingsCatalog.pipeline`): `iap config keys` prints it, and each `main`
        /// refuses `IAP_` names outside it. A leaf over the settings layer (and Apple's models, for the
        /// environment and endpoint defaults), so every `main` links it and no process links another's code
        /// for it; the settings structs (`HostSettings`, `StageSettings`, …) forward its keys and read them.
        .target(name: "Catalog", dependencies: ["Settings", "AppStoreModels"], swiftSettings: strictSettings),

        // MARK: Process host
        /// What every executable is hosted by: the settings every process reads (`HostSettings`),
        /// logging bootstrap, replica identity, the ops server and readiness, and the one run
        /// loop. Knows nothing of Kafka, Redis or purchases.
        .target(
            name: "Hosting",
            dependencies: [
                "Catalog",
                "Settings",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: ProductCatalog
        /// The product catalog file (products → entitlements and credits, docs/catalog.md): a
        /// leaf over Apple's product types and Yams, for the customer state and `iap config check`.
        .target(
            name: "ProductCatalog",
            dependencies: [
                "Basics",
                "AppStoreModels",
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Customers
        /// The customer state: each customer's purchases folded from `iap.entitlements`, and
        /// the view rendered from them with the product catalog at read time. Beneath the state
        /// stage and the read API, with neither Kafka, Redis nor a server in it.
        .target(
            name: "Customers",
            dependencies: ["Basics", "AppStoreModels", "Contracts", "ProductCatalog"],
            swiftSettings: strictSettings
        ),

        // MARK: Read API
        /// `iap-api` (issue 21): customers read from the customer state's copy in Redis, with
        /// API keys scoped to apps; Hummingbird, like the gateway.
        .target(
            name: "ReadAPI",
            dependencies: [
                "Basics", "Catalog", "Contracts", "Customers", "Hosting", "Pipeline", "ProductCatalog", "Redis",
                "Settings", "WorkerCommon", "AppStoreModels", "AppStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "iap-api",
            dependencies: [
                "Catalog", "Hosting", "ReadAPI", "Settings", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings),

        // MARK: Topology
        /// The pipeline file (topics, stages, retry policies, windows) and where the cluster is:
        /// read by the runtime, the gateway and the CLI alike, so none needs another's code.
        .target(
            name: "Topology",
            dependencies: [
                "Basics",
                "Catalog",
                "Settings",
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Fuzzing
        /// What the libFuzzer targets check for each input (a finding is a thrown `FuzzFinding`),
        /// kept beside them in Fuzz/Checks and shared by the Fuzz package's entry points and the
        /// corpus replay tests (`FuzzCorpusTests`).
        .target(
            name: "FuzzChecks",
            dependencies: ["AppStore", "AppStoreModels", "Contracts", "Purchases", "Topology"],
            path: "Fuzz/Checks",
            swiftSettings: strictSettings
        ),

        // MARK: Runtime
        .target(
            name: "Pipeline",
            dependencies: [
                "Contracts",
                "AppStoreModels",
                "Basics",
                "Catalog",
                "Kafka",
                "Redis",
                "Hosting",
                "Settings",
                "Topology",
                "Traces",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Workers
        /// What the stage workers and reconcile share, beneath both: the Redis implementations of
        /// the rules' state and of reconcile's checkpoints and leases (`StateKeys`, the stores;
        /// `State/` as it was in Workers), the stages' settings with verify's Apple keys
        /// (`StageSettings`), and the metered Apple HTTP client and call gate.
        .target(
            name: "WorkerCommon",
            dependencies: [
                "Basics",
                "Customers",
                "Catalog",
                "Redis",
                "Settings",
                "Topology",
                "Pipeline",
                "Contracts",
                "Purchases",
                "AppStore",
                "AppStoreModels",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Yams", package: "Yams"),
            ],
            // Unoptimized even in release (decision D45): since the typed Redis commands (D44),
            // Swift 6.3.1's LLVM crashes (signal 11 in CoroSplit) optimizing the state stores'
            // async functions, and no source rewrite held (the crash moved to the next store).
            // The stores wait on Redis round trips; the codec they call is optimized in Contracts.
            swiftSettings: strictSettings + [.unsafeFlags(["-Onone"])]
        ),
        /// The four stages as the runtime runs them: `Purchases` rules behind `MessageHandler`s,
        /// their assembly and layout, `WorkerMain`, and the state rebuilds (decision D9). The
        /// executables are thin `main`s over it.
        .target(
            name: "Workers",
            dependencies: [
                "Customers",
                "Basics",
                "Kafka",
                "Hosting",
                "Settings",
                "Topology",
                "Pipeline",
                "Contracts",
                "Purchases",
                "AppStore",
                "AppStoreModels",
                "WorkerCommon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strictSettings
        ),
        /// Reconcile (decision D32): Apple's notification history paged from a checkpoint and the
        /// sweep of subscriptions active past their expiry, republished into the pipeline;
        /// `ReconcileMain` is `iap-reconcile`, `ReconcileAssembly` is also `iap reconcile`.
        .target(
            name: "Reconcile",
            dependencies: [
                "Basics",
                "Catalog",
                "Kafka",
                "Redis",
                "Hosting",
                "Settings",
                "Topology",
                "Pipeline",
                "Contracts",
                "Purchases",
                "AppStore",
                "AppStoreModels",
                "WorkerCommon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "iap-intake", dependencies: ["Catalog", "Settings", "Topology", "Workers"],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "iap-verify", dependencies: ["Catalog", "Settings", "Topology", "Workers"],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "iap-match", dependencies: ["Catalog", "Settings", "Topology", "Workers"],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "iap-grant", dependencies: ["Catalog", "Settings", "Topology", "Workers"],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "iap-state", dependencies: ["Catalog", "Settings", "Topology", "Workers"],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "iap-confirm", dependencies: ["Catalog", "Settings", "Topology", "Workers"],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "iap-reconcile", dependencies: ["Catalog", "Reconcile", "Settings"], swiftSettings: strictSettings),

        // MARK: Support tools
        /// What `iap support` and `iap notifications test` do, as library code: Apple's answers
        /// about one customer checked with verify's trust beside grant's state, the republish of
        /// an order, and the notification self-check across gateway, intake and verify.
        .target(
            name: "SupportTools",
            dependencies: [
                "Basics",
                "AppStore",
                "AppStoreModels",
                "Contracts",
                "Purchases",
                "Kafka",
                "Redis",
                "Settings",
                "Topology",
                "Pipeline",
                "WorkerCommon",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Local stand-ins
        /// The embedded stack of `iap-dev dev up`, `iap-dev demo`, `iap-dev bench e2e` and the end-to-end
        /// tests: mock-cluster broker, `redis-server` child, simulator, workers as child processes.
        .target(
            name: "LocalStack",
            dependencies: [
                "Basics",
                "Kafka",
                "AppStoreModels",
                "Contracts",
                "Purchases",
                "Redis",
                "Hosting",
                "Settings",
                "Topology",
                "Pipeline",
                "WorkerCommon",
                "Workers",
                "Reconcile",
                "Catalog",
                "Gateway",
                "ReadAPI",
                "Customers",
                "AppStoreSimulator",
                "LocalServices",
                "Processes",
                "SupportTools",
                "AppStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Ingress
        /// App Store Server Notifications V2 over HTTP(S): each notification is written to Kafka
        /// before Apple gets its 200. Decodes the JWS unverified, only to pick the record key.
        .target(
            name: "Gateway",
            dependencies: [
                "Basics",
                "Catalog",
                "Kafka",
                "Hosting",
                "Settings",
                "Topology",
                "AppStoreModels",
                "Contracts",
                "Traces",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Executables
        /// The operator CLI, the one command-line tool of the production image: it links none of
        /// the local stand-ins (`DependencyClosureTests`; decision D46).
        .executableTarget(
            name: "iap",
            dependencies: [
                "Kafka",
                "Redis",
                "Pipeline",
                "AppStore",
                "AppStoreModels",
                "Contracts",
                "Purchases",
                "Workers",
                "WorkerCommon",
                "Reconcile",
                "Catalog",
                "Hosting",
                "Settings",
                "Topology",
                "ProductCatalog",
                "Customers",
                "ReadAPI",
                "Gateway",
                "SupportTools",
                "Traces",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        /// The developer tools (decision D46): `iap-dev dev up|broker`, `demo`, `sim`, `soak` and
        /// `bench`, over the local stand-ins. Not in the production image; its `dev` stage adds it
        /// for the simulator service.
        .executableTarget(
            name: "iap-dev",
            dependencies: [
                "Catalog",
                "Customers",
                "ProductCatalog",
                "ReadAPI",
                "WorkerCommon",
                "Basics",
                "Kafka",
                "Redis",
                "Pipeline",
                "AppStore",
                "AppStoreModels",
                "AppStoreSimulator",
                "Contracts",
                "Purchases",
                "LocalStack",
                "LocalServices",
                "Processes",
                "Hosting",
                "Settings",
                "Topology",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),

        /// Thin `main` over `Gateway`: flags over environment, logging, one service group.
        .executableTarget(
            name: "iap-gateway",
            dependencies: [
                "Gateway",
                "Hosting",
                "Settings",
                "Kafka",
                "Catalog",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Tests
        /// Harness shared by test targets: a real `redis-server` child on a free port, the
        /// librdkafka mock cluster and the test PKI (`TestSigningChain`). Not shipped in any product.
        .target(
            name: "TestSupport",
            dependencies: [
                "Kafka",
                "Redis",
                "LocalServices",
                "Pipeline",
                "Processes",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "HostingTests",
            dependencies: [
                "Hosting",
                "Settings",
                "Processes",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "BasicsTests", dependencies: ["Basics"], swiftSettings: strictSettings),
        .testTarget(name: "SettingsTests", dependencies: ["Settings"], swiftSettings: strictSettings),
        .testTarget(
            name: "ProductCatalogTests", dependencies: ["ProductCatalog", "AppStoreModels"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "ReadAPITests",
            dependencies: [
                "ReadAPI", "Customers", "Contracts", "AppStoreModels", "AppStore", "ProductCatalog", "Redis",
                "WorkerCommon", "TestSupport", "Processes", "Hosting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "CustomersTests",
            dependencies: ["Customers", "ProductCatalog", "Contracts", "AppStoreModels", "Basics"],
            swiftSettings: strictSettings),
        /// Every seed and earlier finding of Fuzz/Corpus through its fuzz target's check, without
        /// the sanitizer build: the corpora as regression tests of the unit tier.
        .testTarget(name: "FuzzCorpusTests", dependencies: ["FuzzChecks"], swiftSettings: strictSettings),
        .testTarget(
            name: "TracesTests",
            dependencies: [
                "Traces", "Kafka",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "KafkaTests",
            dependencies: [
                "Kafka", "LocalServices", "TestSupport", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "RedisTests", dependencies: ["Redis", "CHiredis", "LocalServices", "TestSupport"],
            swiftSettings: strictSettings),
        /// The four workers (and the gateway) as separate processes against the mock broker, a
        /// real redis-server and the simulator, through `LocalStack`. Needs the executables
        /// built (`swift build --build-tests` builds them).
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "LocalStack", "PipelineHarness", "Contracts", "Purchases", "Kafka", "Pipeline", "Processes",
                "TestSupport",
                "Traces",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        /// The pipeline test harness: the embedded stack with its members in process (scenarios)
        /// or as processes (end-to-end), and what the reconcile tests of both share.
        .target(
            name: "PipelineHarness",
            dependencies: [
                "LocalStack", "Contracts", "Kafka", "Pipeline", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/PipelineHarness",
            swiftSettings: strictSettings
        ),
        /// The demo's and reconcile's scenarios with every member in process: `make test`.
        .testTarget(
            name: "ScenarioTests",
            dependencies: [
                "PipelineHarness", "LocalStack", "LocalServices", "Kafka", "Topology", "TestSupport", "Contracts",
                "Customers", "Redis", "ProductCatalog", "AppStoreModels",
            ],
            swiftSettings: strictSettings
        ),
        /// The support tools against the simulator, the mock broker and a real redis-server
        /// (`LocalStack`); the notification self-check and republish run the worker executables.
        .testTarget(
            name: "SupportToolsTests",
            dependencies: [
                "SupportTools", "LocalStack", "PipelineHarness", "AppStore", "AppStoreModels", "Contracts", "Purchases",
                "Kafka",
                "Pipeline", "Redis", "Settings", "Topology", "WorkerCommon", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        /// docker-compose.yml, its overrides and the Kubernetes overlays held to the binaries:
        /// schema validators, KEDA's documented fields, grace periods, and every process they run
        /// started natively with the file's environment. Needs the executables built.
        .testTarget(
            name: "DeploymentTests",
            dependencies: [
                "LocalStack", "LocalServices", "Hosting", "Kafka", "Redis", "Topology", "TestSupport", "Processes",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WorkersTests",
            dependencies: [
                "Workers", "WorkerCommon", "Customers", "Catalog", "Contracts", "Purchases", "Pipeline", "Hosting",
                "Settings",
                "Topology",
                "Kafka", "AppStore", "AppStoreModels", "Redis", "TestSupport", "AppStoreSimulator", "LocalStack",
                "LocalServices",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        /// Reconcile against the simulator's notification history and a real redis-server.
        .testTarget(
            name: "ReconcileTests",
            dependencies: [
                "Reconcile", "WorkerCommon", "Contracts", "Purchases", "Kafka", "AppStore", "AppStoreModels", "Redis",
                "TestSupport", "AppStoreSimulator", "LocalStack", "Settings",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PipelineTests",
            dependencies: [
                "Pipeline", "Contracts", "Hosting", "Settings", "Topology", "Kafka", "Redis", "LocalServices",
                "TestSupport", "Traces",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "Gateway", "AppStoreModels", "Contracts", "Hosting", "Settings", "Kafka", "LocalServices", "Pipeline",
                "Topology", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AppStoreTests",
            dependencies: [
                "AppStore", "AppStoreModels", "Processes", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            resources: [.copy("Vectors")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PurchasesTests",
            dependencies: [
                "Basics",
                "Contracts",
                "Purchases",
                "AppStore",
                "AppStoreModels",
                "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
        /// The wire format: byte-for-byte goldens, the codec's refusals, and the check that
        /// every stored field of a contract type is on its hand-written JSON path.
        /// And the JSON Schemas of docs/schemas against the contract types (check-jsonschema).
        .testTarget(
            name: "ContractsTests",
            dependencies: ["Customers", "Contracts", "Purchases", "AppStoreModels", "Topology", "TestSupport"],
            swiftSettings: strictSettings
        ),
        /// The deployment's monitoring: the alert rules (`promtool check rules` and `promtool test
        /// rules`, the PrometheusRule identical to the rules file, runbook anchors, metric names).
        .testTarget(
            name: "OperationsTests",
            dependencies: [
                "Hosting", "Processes",
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AppStoreSimulatorTests",
            dependencies: [
                "AppStoreSimulator",
                "AppStore",
                "AppStoreModels",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
