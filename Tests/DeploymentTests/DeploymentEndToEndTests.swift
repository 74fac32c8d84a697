import AsyncHTTPClient
import Foundation
import Kafka
import LocalStack
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Processes
import TestSupport
import Testing
import Topology

/// Holds the shipped deployments (docker-compose.yml and its overrides, every Kubernetes overlay)
/// to the binaries: the files are valid for their schemas, and every process they run starts
/// natively with exactly the environment and arguments they give it and answers its readiness
/// check. A setting missing from a shipped file fails here, not in a restart loop.
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

    /// KEDA's Kafka scaler, trigger metadata it documents:
    /// https://keda.sh/docs/latest/scalers/apache-kafka/ ("Trigger Specification", "Parameter list").
    static let kafkaScalerMetadata: Set<String> = [
        "bootstrapServers", "consumerGroup", "topic", "lagThreshold", "activationLagThreshold", "offsetResetPolicy",
        "allowIdleConsumers", "scaleToZeroOnInvalidOffset", "excludePersistentLag", "limitToPartitionsWithLag",
        "version", "partitionLimitation", "sasl", "tls", "unsafeSsl",
    ]
    /// A ScaledObject's spec (https://keda.sh/docs/latest/reference/scaledobject-spec/).
    static let scaledObjectSpec: Set<String> = [
        "scaleTargetRef", "pollingInterval", "cooldownPeriod", "initialCooldownPeriod", "idleReplicaCount",
        "minReplicaCount", "maxReplicaCount", "fallback", "advanced", "triggers",
    ]

    // MARK: Schemas

    @Test func composeFilesFollowTheComposeSpecification() async throws {
        for file in ["docker-compose.yml"] + (try DeploymentFiles.composeOverrides()) {
            let (code, output) = try await Tools.run(
                "check-jsonschema", ["--builtin-schema", "vendor.compose-spec", DeploymentFiles.path(file)])
            #expect(code == 0, "\(file) breaks the Compose specification:\n\(output)")
        }
    }

    /// kustomize is not installed: each overlay is rendered here and every resulting object is
    /// checked by kubernetes-validate --strict (unknown fields refused). Only the custom resources
    /// have no schema there: KEDA's ScaledObject (`scaledObjectsUseOnlyWhatKEDADocuments`) and the
    /// Prometheus Operator's PrometheusRule (`thePrometheusRuleUsesOnlyWhatTheOperatorDocuments`).
    @Test func kubernetesOverlaysRenderToValidManifests() async throws {
        let overlays = try DeploymentFiles.overlays()
        #expect(overlays.contains("apple") && overlays.contains("simulator"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "iap-k8s-\(UUID().uuidString.prefix(6))"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var files = [DeploymentFiles.path("deploy/kubernetes/gateway-ingress.example.yaml")]
        for overlay in overlays {
            let rendered = try DeploymentFiles.render(
                kustomization: DeploymentFiles.path("deploy/kubernetes/overlays/" + overlay))
            for (index, document) in rendered.enumerated() {
                let path = "\(directory)/\(overlay)-\(index)-\(text(document["kind"]) ?? "unknown").json"
                try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]).write(
                    to: URL(fileURLWithPath: path))
                files.append(path)
            }
        }
        let (code, output) = try await Tools.run("kubernetes-validate", ["--strict"] + files)
        #expect(code == 0, "kubernetes-validate --strict refused a rendered manifest:\n\(output)")
        let unknown = output.split(separator: "\n").filter {
            $0.contains("Couldn't find schema") && !$0.contains("kind ScaledObject with api version keda.sh/")
                && !$0.contains("kind PrometheusRule with api version monitoring.coreos.com/v1 ")
        }
        #expect(unknown.isEmpty, "objects no schema checked:\n\(unknown.joined(separator: "\n"))")
    }

    /// PrometheusRule's spec (https://prometheus-operator.dev/docs/api-reference/api/#monitoring.coreos.com/v1.PrometheusRuleSpec):
    /// the groups themselves are promtool-checked against the rules file by `AlertRulesTests`.
    static let ruleGroupFields: Set<String> = [
        "name", "labels", "interval", "query_offset", "rules", "partial_response_strategy", "limit",
    ]
    static let ruleFields: Set<String> = ["record", "alert", "expr", "for", "keep_firing_for", "labels", "annotations"]

    @Test func thePrometheusRuleUsesOnlyWhatTheOperatorDocuments() throws {
        for overlay in try DeploymentFiles.overlays() {
            let rendered = try DeploymentFiles.render(
                kustomization: DeploymentFiles.path("deploy/kubernetes/overlays/" + overlay))
            let rules = KubernetesProject.resources(rendered, kind: "PrometheusRule")
            #expect(rules.count == 1, "\(overlay) ships the alert rules")
            for (name, rule) in rules {
                #expect(text(rule["apiVersion"]) == "monitoring.coreos.com/v1")
                let spec = mapping(rule["spec"])
                #expect(Set(spec.keys) == ["groups"], "PrometheusRule \(name): spec holds groups only")
                for group in sequence(spec["groups"]).map({ mapping($0) }) {
                    let unknown = Set(group.keys).subtracting(Self.ruleGroupFields)
                    #expect(unknown.isEmpty, "PrometheusRule \(name): \(unknown.sorted()) are not rule group fields")
                    for entry in sequence(group["rules"]).map({ mapping($0) }) {
                        let unknown = Set(entry.keys).subtracting(Self.ruleFields)
                        #expect(unknown.isEmpty, "PrometheusRule \(name): \(unknown.sorted()) are not rule fields")
                    }
                }
            }
        }
    }

    @Test func scaledObjectsUseOnlyWhatKEDADocuments() throws {
        let pipeline = try PipelineFile.load(path: DeploymentFiles.path("pipelines/iap.yaml"))
        let partitions = Dictionary(uniqueKeysWithValues: pipeline.allTopics.map { ($0.name, $0.partitions) })
        for overlay in try DeploymentFiles.overlays() {
            let rendered = try DeploymentFiles.render(
                kustomization: DeploymentFiles.path("deploy/kubernetes/overlays/" + overlay))
            let deployments = KubernetesProject.resources(rendered, kind: "Deployment")
            let brokers = text(
                mapping(KubernetesProject.resources(rendered, kind: "ConfigMap")["iap-config"]?["data"])[
                    "KAFKA_BROKERS"])
            let scaledObjects = KubernetesProject.resources(rendered, kind: "ScaledObject")
            #expect(!scaledObjects.isEmpty)
            for (name, scaledObject) in scaledObjects {
                let spec = mapping(scaledObject["spec"])
                let unknown = Set(spec.keys).subtracting(Self.scaledObjectSpec)
                #expect(unknown.isEmpty, "ScaledObject \(name): \(unknown.sorted()) are not ScaledObject fields")
                let target = text(mapping(spec["scaleTargetRef"])["name"]) ?? ""
                let container = sequence(
                    mapping(mapping(mapping(deployments[target]?["spec"])["template"])["spec"])["containers"]
                ).first.map { mapping($0) }
                let executable = sequence(container?["args"]).first.flatMap { text($0) } ?? ""
                let stage = try pipeline.stage(named: String(executable.dropFirst(4)))
                var largestInput = 0
                for trigger in sequence(spec["triggers"]).map({ mapping($0) }) {
                    #expect(text(trigger["type"]) == "kafka", "ScaledObject \(name): a trigger that is not kafka")
                    let metadata = mapping(trigger["metadata"])
                    let undocumented = Set(metadata.keys).subtracting(Self.kafkaScalerMetadata)
                    #expect(
                        undocumented.isEmpty,
                        "ScaledObject \(name): \(undocumented.sorted()) are not Kafka scaler metadata")
                    for key in ["lagThreshold", "activationLagThreshold"] {
                        if let value = metadata[key] {
                            #expect(
                                value is String && Int(text(value) ?? "") != nil,
                                "\(name): \(key) must be a quoted integer")
                        }
                    }
                    for key in [
                        "allowIdleConsumers", "scaleToZeroOnInvalidOffset", "excludePersistentLag",
                        "limitToPartitionsWithLag",
                    ] {
                        if let value = metadata[key] {
                            #expect(
                                ["true", "false"].contains(value as? String),
                                "\(name): \(key) must be \"true\" or \"false\"")
                        }
                    }
                    if let policy = metadata["offsetResetPolicy"] {
                        #expect(["earliest", "latest"].contains(text(policy)), "\(name): offsetResetPolicy")
                    }
                    #expect(
                        text(metadata["bootstrapServers"]) == brokers,
                        "\(name): bootstrapServers differ from KAFKA_BROKERS")
                    #expect(text(metadata["consumerGroup"]) == stage.consumerGroup, "\(name): not \(target)'s group")
                    let topic = text(metadata["topic"]) ?? ""
                    #expect(stage.inputs.contains(topic), "\(name): \(topic) is not an input of \(stage.name)")
                    largestInput = max(largestInput, partitions[topic] ?? 0)
                }
                let maximum = spec["maxReplicaCount"] as? Int ?? 100
                #expect(maximum <= largestInput, "ScaledObject \(name): more replicas (\(maximum)) than partitions")
            }
        }
    }

    // MARK: Hardening

    @Test func deploymentsAreHardened() throws {
        for overlay in try DeploymentFiles.overlays() {
            let rendered = try DeploymentFiles.render(
                kustomization: DeploymentFiles.path("deploy/kubernetes/overlays/" + overlay))
            let scaled = Set(
                KubernetesProject.resources(rendered, kind: "ScaledObject").values.compactMap {
                    text(mapping(mapping($0["spec"])["scaleTargetRef"])["name"])
                })
            for (name, deployment) in KubernetesProject.resources(rendered, kind: "Deployment") {
                let spec = mapping(deployment["spec"])
                let pod = mapping(mapping(spec["template"])["spec"])
                if scaled.contains(name) {
                    #expect(spec["replicas"] == nil, "\(name): KEDA owns the replica count; drop replicas")
                }
                #expect(
                    text(mapping(mapping(pod["securityContext"])["seccompProfile"])["type"]) == "RuntimeDefault",
                    "\(name): Pod Security restricted needs seccompProfile RuntimeDefault")
                for container in sequence(pod["containers"]).map({ mapping($0) }) {
                    let security = mapping(container["securityContext"])
                    #expect(security["allowPrivilegeEscalation"] as? Bool == false, "\(name): allowPrivilegeEscalation")
                    #expect(
                        sequence(mapping(security["capabilities"])["drop"]).compactMap { text($0) } == ["ALL"],
                        "\(name)")
                    let names = sequence(container["env"]).compactMap { text(mapping($0)["name"]) }
                    // A Deployment pod's name changes on every reschedule: static membership would
                    // only delay each rollout's rebalance by session.timeout.ms (docs/operations.md).
                    #expect(!names.contains("IAP_GROUP_INSTANCE_ID"), "\(name): no static membership in a Deployment")
                }
            }
        }
    }

    /// docs/operations.md, "Shutdown budget": every grace period exceeds preStop + the drain
    /// (IAP_SHUTDOWN_GRACE_SECONDS) + the producer's flush + 5 s.
    @Test func gracePeriodsExceedTheShutdownBudget() throws {
        func budget(_ executable: String, _ environment: [String: String], preStop: Int) -> Int? {
            guard NativeStack.workerExecutables.contains(executable) else { return nil }
            let drain = Int(environment["IAP_SHUTDOWN_GRACE_SECONDS"] ?? "") ?? -1000
            let flush =
                executable == "iap-gateway"
                ? Int(environment["IAP_GATEWAY_WRITE_TIMEOUT_SECONDS"] ?? "") ?? Self.gatewayWriteTimeoutDefault
                : Self.workerFlushSeconds
            return preStop + drain + flush + Self.marginSeconds
        }
        for files in Self.composeVariants() {
            let project = try ComposeProject.project(
                files, variables: Self.appleVariables(keyFile: "/dev/null"), brokers: "kafka", redis: "redis",
                directory: NSTemporaryDirectory())
            for process in project.processes {
                guard let executable = process.command.first,
                    let needed = budget(executable, process.environment, preStop: 0)
                else { continue }
                #expect(process.environment["IAP_SHUTDOWN_GRACE_SECONDS"] != nil, "\(process.name): state the drain")
                let stated = Self.seconds(text(project.services[process.name]?["stop_grace_period"]) ?? "10s")
                #expect(stated >= needed, "\(files): \(process.name) stop_grace_period \(stated)s < \(needed)s")
            }
        }
        for overlay in try DeploymentFiles.overlays() {
            let rendered = try DeploymentFiles.render(
                kustomization: DeploymentFiles.path("deploy/kubernetes/overlays/" + overlay))
            let configMaps = KubernetesProject.resources(rendered, kind: "ConfigMap")
            for (name, deployment) in KubernetesProject.resources(rendered, kind: "Deployment") {
                let pod = mapping(mapping(mapping(deployment["spec"])["template"])["spec"])
                let container = sequence(pod["containers"]).first.map { mapping($0) } ?? [:]
                var environment: [String: String] = [:]
                for entry in sequence(container["envFrom"]).map({ mapping($0) }) {
                    let data = mapping(configMaps[text(mapping(entry["configMapRef"])["name"]) ?? ""]?["data"])
                    for (key, value) in data { environment[key] = text(value) }
                }
                for entry in sequence(container["env"]).map({ mapping($0) }) {
                    if let key = text(entry["name"]), let value = text(entry["value"]) { environment[key] = value }
                }
                let sleep = sequence(mapping(mapping(mapping(container["lifecycle"])["preStop"])["exec"])["command"])
                    .compactMap { text($0) }
                let preStop = sleep.first == "sleep" ? Int(sleep.last ?? "") ?? 0 : 0
                let executable = sequence(container["args"]).first.flatMap { text($0) } ?? ""
                guard let needed = budget(executable, environment, preStop: preStop) else { continue }
                let stated = pod["terminationGracePeriodSeconds"] as? Int ?? 30
                #expect(stated >= needed, "\(overlay): \(name) terminationGracePeriodSeconds \(stated) < \(needed)")
            }
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
            let credentials = try await Self.simulatorCredentials(in: stack.directory)
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

    /// Every Deployment of each overlay starts with the rendered environment, arguments and
    /// mounts (ConfigMaps from the overlay; the out-of-band Secrets as their documented
    /// `kubectl create secret` commands make them) and answers its readinessProbe.
    @Test(arguments: try DeploymentFiles.overlays())
    func everyDeploymentStarts(_ overlay: String) async throws {
        let stack = try await NativeStack(label: "k8s-\(overlay)")
        do {
            let state = try await Self.simulatorCredentials(in: stack.directory)
            var simulatorState: [String: Data] = [:]
            for file in try FileManager.default.contentsOfDirectory(atPath: state) {
                simulatorState[file] = FileManager.default.contents(atPath: state + "/" + file)
            }
            let standIns: [String: [String: Data]] = [
                "iap-redis": ["url": Data("redis://redis:6379".utf8)],
                "iap-apple": [
                    "AuthKey.p8": simulatorState["AuthKey.p8"] ?? Data(),
                    "root.pem": simulatorState["root.pem"] ?? Data(),
                ],
                "iap-apple-simulator": simulatorState,
            ]
            let rendered = try DeploymentFiles.render(
                kustomization: DeploymentFiles.path("deploy/kubernetes/overlays/" + overlay))
            let project = try KubernetesProject.project(
                rendered, overlay: overlay, standIns: standIns, brokers: stack.cluster.bootstrapServers,
                directory: stack.directory)
            var hosts = project.hosts
            hosts["redis:6379"] = stack.redisAddress
            try await stack.start(project.processes, hosts: hosts, aliases: project.aliases)
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

    /// The simulator's credentials made as deploy/kubernetes/overlays/simulator documents it.
    static func simulatorCredentials(in directory: String) async throws -> String {
        let state = directory + "/sim-state"
        let (code, output) = try await Tools.run(
            DeploymentFiles.path(".build/debug/iap"),
            ["sim", "--generate-only", "--state-dir", state, "--api-key-file", state + "/AuthKey.p8"])
        guard code == 0 else { throw DeploymentError("iap sim --generate-only failed:\n\(output)") }
        return state
    }

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
