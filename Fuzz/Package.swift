// swift-tools-version: 6.1
import PackageDescription

/// libFuzzer targets for the decoders that read untrusted bytes (Fuzz/README.md). A package of
/// its own so the root package and `make test` builds stay free of `-sanitize=fuzzer`: build it
/// with `swift build --sanitize=fuzzer` (`Fuzz/run` does), which also lets libFuzzer supply `main`.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "iap-pipeline-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "iap-pipeline", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "FuzzEventDecoder",
            dependencies: [.product(name: "FuzzChecks", package: "iap-pipeline")],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "FuzzJWS",
            dependencies: [.product(name: "FuzzChecks", package: "iap-pipeline")],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "FuzzReceipt",
            dependencies: [.product(name: "FuzzChecks", package: "iap-pipeline")],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "FuzzPipelineFile",
            dependencies: [.product(name: "FuzzChecks", package: "iap-pipeline")],
            swiftSettings: strictSettings
        ),
    ]
)
