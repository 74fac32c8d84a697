import AsyncHTTPClient
import Foundation
import Hosting
import Kafka
import LocalServices
import LocalStack
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Processes
import TestSupport
import Testing
import Topology

/// Holds the shipped deployments (docker-compose.yml and its overrides, every kustomization
/// under deploy/ as `kubectl kustomize` renders it) and the image to the binaries: the files are
/// valid for their schemas, every command they run is one the image holds, and every process
/// they run starts, from the image's product list only, with exactly the environment and
/// arguments they give it and answers its readiness check. A setting missing from a shipped file
/// fails here, not in a restart loop; a missing tool (kubectl, kubernetes-validate,
/// check-jsonschema, promtool, jq) fails it too.
///
/// Named `…EndToEndTests` so `make test` runs it with the end-to-end tests, in their own
/// invocation: it starts processes on free loopback ports (decision D13).
@Suite(.serialized)
struct DeploymentEndToEndTests {
    /// The producer's flush bound on shutdown: a worker's `Worker.run` clean-up calls
    /// `KafkaProducer.close()`, whose `flush(timeout:)` defaults to 30 s; the gateway flushes for
    /// IAP_GATEWAY_WRITE_TIMEOUT_SECONDS. docs/operations.md, "Shutdown budget".
    static let workerFlushSeconds = 30
    static let gatewayWriteTimeoutDefault = 10
    /// Process exit, Redis close, the kubelet's own latency.
    static let marginSeconds = 5

    @Test func composeFilesFollowTheComposeSpecification() async throws {
        for file in ["docker-compose.yml"] + (try DeploymentFiles.composeOverrides()) {
            let (code, output) = try await Tools.run(
                "check-jsonschema", ["--builtin-schema", "vendor.compose-spec", DeploymentFiles.path(file)])
            #expect(code == 0, "\(file) breaks the Compose specification:\n\(output)")
        }
    }

    @Test func prometheusConfigurationIsValid() async throws {
        let (code, output) = try await Tools.run(
            "promtool", ["check", "config", DeploymentFiles.path("deploy/prometheus/prometheus.yml")])
        #expect(code == 0, "promtool check config:\n\(output)")
    }

    // MARK: The processes start

    /// Every service of docker-compose.yml built from the project image (and of it with each
    /// override) starts with the file's environment and arguments and passes its healthcheck.
    @Test(arguments: DeploymentEndToEndTests.composeVariants())
    func everyComposeServiceStarts(_ files: [String]) async throws {
        let stack = try await NativeStack(label: "compose")
        do {
            let credentials = try await Self.simulatorCredentials(stack)
            let project = try ComposeProject.project(
                files, variables: Self.appleVariables(keyFile: credentials + "/AuthKey.p8"),
                brokers: stack.cluster.bootstrapServers, redis: stack.redisAddress, directory: stack.directory)
            #expect(project.processes.contains { $0.name == "iap-verify" })
            try await stack.start(project.processes, hosts: project.hosts)
            if files == ["docker-compose.yml"] { try await Self.theREADMEPurchaseIsGranted(stack) }
        } catch {
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    /// Every Deployment of each overlay, as `kubectl kustomize` renders it, starts with the
    /// rendered environment, arguments and mounts (ConfigMaps from the render; the out-of-band
    /// Secrets as their documented `kubectl create secret` commands make them) and answers its
    /// readinessProbe.
    @Test(arguments: try DeploymentFiles.overlays())
    func everyDeploymentStarts(_ overlay: String) async throws {
        try await Self.withDeployments(
            try await DeploymentFiles.render(overlay), of: overlay,
            label: "k8s-\(URL(fileURLWithPath: overlay).lastPathComponent)"
        ) { stack, project, hosts in
            try await stack.start(project.processes, hosts: hosts, aliases: project.aliases)
        }
    }

    /// Runs `body` with a native stack, the rendered overlay's processes as that stack would run
    /// them (the documented Secrets as stand-ins, `redis:6379` pointing at the stack's Redis), and
    /// their host names; the stack stops afterwards, whether `body` throws or not.
    static func withDeployments(
        _ rendered: [[String: Any]], of overlay: String, label: String,
        _ body: (NativeStack, KubernetesProject.Project, [String: String]) async throws -> Void
    ) async throws {
        let stack = try await NativeStack(label: label)
        do {
            let project = try KubernetesProject.project(
                rendered, overlay: overlay, standIns: try await documentedSecrets(stack),
                brokers: stack.cluster.bootstrapServers, directory: stack.directory)
            var hosts = project.hosts
            hosts["redis:6379"] = stack.redisAddress
            try await body(stack, project, hosts)
        } catch {
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    /// The README's compose section, step by step, against the stack the file describes: the
    /// `apple` service sells a consumable, `iap publish purchase` (as the README runs it inside
    /// the `apple` container) publishes its signed transaction, and the entitlement appears on
    /// `iap.entitlements`.
    static func theREADMEPurchaseIsGranted(_ stack: NativeStack) async throws {
        let apple = try #require(stack.addresses["apple:8090"], "the apple service listens on 8090")
        var request = HTTPClientRequest(url: "http://\(apple)/sim/v1/purchases")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: #"{"productId": "com.example.game.gems100", "type": "Consumable"}"#))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        #expect(response.status == .ok || response.status == .created)
        let purchase = try #require(
            try JSONSerialization.jsonObject(with: Data(buffer: try await response.body.collect(upTo: 1 << 20)))
                as? [String: Any])
        let transactionId = try #require(purchase["transactionId"] as? String)
        let signedTransaction = try #require(purchase["signedTransaction"] as? String)

        let entitlements = try TopicObserver(
            bootstrap: stack.cluster.bootstrapServers, topics: ["iap.entitlements"],
            logger: Logger(label: "deployment-tests"))
        defer { Task { await entitlements.close() } }
        let publish = try ChildProcess(
            name: "iap-publish", executable: stack.binDirectory + "/iap",
            arguments: [
                "publish", "purchase", "--brokers", stack.cluster.bootstrapServers, "--user", "user-1",
                "--bundle-id", "com.example.game", "--signed-transaction", signedTransaction,
            ],
            environment: ["PATH": "/usr/bin:/bin"], output: .file(stack.directory + "/logs/iap-publish.log"))
        #expect(await publish.waitForExit() == 0, "iap publish purchase failed: \(publish.logTail())")

        let granted = try await eventually("an entitlement for transaction \(transactionId)", timeout: .seconds(60)) {
            entitlements.records.lazy.compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.value)) as? [String: Any]
            }.first { $0["transactionId"] as? String == transactionId }
        }
        #expect(granted["action"] as? String == "grant")
        #expect(granted["userId"] as? String == "user-1")
        #expect(granted["productId"] as? String == "com.example.game.gems100")
    }

    // MARK: Helpers

    static func composeVariants() -> [[String]] {
        [["docker-compose.yml"]] + ((try? DeploymentFiles.composeOverrides()) ?? []).map { ["docker-compose.yml", $0] }
    }

    /// What docker-compose.apple.yml asks the operator to export.
    static func appleVariables(keyFile: String) -> [String: String] {
        [
            "IAP_BUNDLE_ID": "com.example.game", "IAP_APP_APPLE_ID": "1234567890", "IAP_APPLE_KEY_ID": "ABC123DEFG",
            "IAP_APPLE_ISSUER_ID": "57246542-96fe-1a63-e053-0824d011072a", "IAP_APPLE_PRIVATE_KEY_FILE": keyFile,
        ]
    }

    /// The simulator's credentials made as deploy/kubernetes/overlays/simulator documents it, by
    /// the developer tools (`iap-dev`, the image's `dev` stage).
    static func simulatorCredentials(_ stack: NativeStack) async throws -> String {
        let state = stack.directory + "/sim-state"
        let (code, output) = try await Tools.run(
            stack.binDirectory + "/iap-dev",
            ["sim", "--generate-only", "--state-dir", state, "--api-key-file", state + "/AuthKey.p8"])
        guard code == 0 else { throw DeploymentError("iap-dev sim --generate-only failed:\n\(output)") }
        return state
    }

    /// The Secrets the kustomizations' comments tell the operator to create out of band, as
    /// their `kubectl create secret` lines make them (the simulator's from `iap-dev sim --generate-only`).
    static func documentedSecrets(_ stack: NativeStack) async throws -> [String: [String: Data]] {
        let state = try await simulatorCredentials(stack)
        var simulatorState: [String: Data] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: state) {
            simulatorState[file] = FileManager.default.contents(atPath: state + "/" + file)
        }
        return [
            "iap-redis": ["url": Data("redis://redis:6379".utf8)],
            "iap-apple": [
                "AuthKey.p8": simulatorState["AuthKey.p8"] ?? Data(),
                "root.pem": simulatorState["root.pem"] ?? Data(),
                // `--from-file=apps.yaml=apps.yaml` (components/several-apps): two apps on the
                // deployment's key; nothing reads it unless IAP_APPS names it.
                "apps.yaml": Data(
                    "apps:\n  - {bundleId: com.example.game, appAppleId: 1234567890}\n"
                        .appending("  - {bundleId: com.example.puzzle, appAppleId: 1234567891}\n").utf8),
            ],
            "iap-apple-simulator": simulatorState,
            "iap-kafka": [
                "username": Data("iap".utf8), "password": Data("s3cret".utf8), "sasl": Data("scram_sha512".utf8),
                "tls": Data("enable".utf8),
            ],
            // `--from-file=keys=api-keys`: a keys file of hashes, compose's development one here.
            "iap-api-keys": [
                "keys": FileManager.default.contents(atPath: DeploymentFiles.path("deploy/compose/api-keys")) ?? Data()
            ],
            // `--from-file=offer-keys=offer-keys --from-file=AuthKey_SIM.p8`: the list names its
            // key file without a path (components/offer-keys).
            "iap-offer-keys": [
                "offer-keys": Data(
                    "com.example.game SIMOFFER1 57246542-96fe-1a63-e053-0824d011072a AuthKey_SIM.p8\n".utf8),
                "AuthKey_SIM.p8": simulatorState["AuthKey.p8"] ?? Data(),
            ],
        ]
    }

    /// The project's version: `BuildStamp.version`, the one place it is written (D37). The
    /// overlays' image tag (components/iap-image), every executable's `--version` and every
    /// process's `iap_build_info` are held to it.
    static let projectVersion = BuildInfo.version

    static let imageComponent = "deploy/kubernetes/components/iap-image"

    /// Compose durations: 65s, 1m30s, 500ms.
    static func seconds(_ duration: String) -> Int {
        var total = 0.0
        var number = ""
        var unit = ""
        func flush() {
            let value = Double(number) ?? 0
            switch unit {
            case "h": total += value * 3600
            case "m": total += value * 60
            case "ms": total += value / 1000
            case "us": total += value / 1_000_000
            default: total += value
            }
            number = ""
            unit = ""
        }
        for character in duration {
            if character.isNumber || character == "." {
                if !unit.isEmpty { flush() }
                number.append(character)
            } else {
                unit.append(character)
            }
        }
        flush()
        return Int(total)
    }
}
