import Foundation
import Testing
import Topology

/// The Kubernetes manifests as `kubectl kustomize` (kustomize v5, what `kubectl apply -k` runs)
/// renders them, checked by kubernetes-validate --strict, and the custom resources, which it has
/// no schema for, against the fields their projects document.
extension DeploymentEndToEndTests {
    /// KEDA's Kafka scaler, trigger metadata it documents:
    /// https://keda.sh/docs/latest/scalers/apache-kafka/ ("Trigger Specification", "Parameter list";
    /// checked against the 2.18 page).
    static let kafkaScalerMetadata: Set<String> = [
        "bootstrapServers", "consumerGroup", "topic", "lagThreshold", "activationLagThreshold", "offsetResetPolicy",
        "allowIdleConsumers", "scaleToZeroOnInvalidOffset", "excludePersistentLag", "limitToPartitionsWithLag",
        "ensureEvenDistributionOfPartitions", "version", "partitionLimitation", "sasl", "saslTokenProvider", "tls",
        "unsafeSsl", "awsRegion",
    ]
    /// The same page, "Authentication Parameters": what a TriggerAuthentication may hand the scaler.
    static let kafkaScalerAuthentication: Set<String> = [
        "sasl", "saslTokenProvider", "username", "password", "keytab", "realm", "kerberosConfig",
        "kerberosServiceName", "kerberosDisableFAST", "oauthTokenEndpointUri", "scopes", "oauthExtensions", "tls",
        "ca", "cert", "key", "keyPassword", "awsRoleArn", "awsAccessKeyID", "awsSecretAccessKey",
    ]
    /// A ScaledObject's spec and triggers (https://keda.sh/docs/latest/reference/scaledobject-spec/).
    static let scaledObjectSpec: Set<String> = [
        "scaleTargetRef", "pollingInterval", "cooldownPeriod", "initialCooldownPeriod", "idleReplicaCount",
        "minReplicaCount", "maxReplicaCount", "fallback", "advanced", "triggers",
    ]
    static let triggerFields: Set<String> = [
        "type", "metadata", "name", "authenticationRef", "metricType", "useCachedMetrics",
    ]
    /// A TriggerAuthentication's spec (https://keda.sh/docs/latest/concepts/authentication/).
    static let triggerAuthenticationSpec: Set<String> = [
        "secretTargetRef", "env", "podIdentity", "hashiCorpVault", "azureKeyVault", "awsSecretManager",
        "gcpSecretManager", "configMapTargetRef",
    ]
    /// PrometheusRule's spec (https://prometheus-operator.dev/docs/api-reference/api/#monitoring.coreos.com/v1.PrometheusRuleSpec):
    /// the groups themselves are promtool-checked against the rules file by `AlertRulesTests`.
    static let ruleGroupFields: Set<String> = [
        "name", "labels", "interval", "query_offset", "rules", "partial_response_strategy", "limit",
    ]
    static let ruleFields: Set<String> = ["record", "alert", "expr", "for", "keep_firing_for", "labels", "annotations"]
    /// PodMonitor (https://prometheus-operator.dev/docs/api-reference/api/#monitoring.coreos.com/v1.PodMonitorSpec
    /// and PodMetricsEndpoint).
    static let podMonitorSpec: Set<String> = [
        "jobLabel", "podTargetLabels", "podMetricsEndpoints", "selector", "namespaceSelector", "sampleLimit",
        "targetLimit", "labelLimit", "labelNameLengthLimit", "labelValueLengthLimit", "keepDroppedTargets",
        "attachMetadata", "scrapeClass", "bodySizeLimit", "scrapeProtocols",
    ]
    static let podMetricsEndpointFields: Set<String> = [
        "port", "portNumber", "targetPort", "path", "scheme", "params", "interval", "scrapeTimeout", "honorLabels",
        "honorTimestamps", "trackTimestampsStaleness", "metricRelabelings", "relabelings", "proxyUrl",
        "followRedirects", "enableHttp2", "filterRunning", "tlsConfig", "authorization", "basicAuth", "oauth2",
        "bearerTokenSecret",
    ]

    /// Every kustomization renders with the real kustomize, and kubernetes-validate --strict
    /// (unknown fields refused) accepts every object it renders: scripts/deploy-check, which
    /// `make test` also runs before the build, allows no object without a schema but the custom
    /// resources checked below.
    @Test func everyKustomizationRendersToValidManifests() async throws {
        let kustomizations = try DeploymentFiles.kustomizations()
        #expect(
            Set(kustomizations).isSuperset(of: [
                "deploy/kubernetes/base", "deploy/kubernetes/overlays/apple", "deploy/kubernetes/overlays/simulator",
                "deploy/kubernetes/examples/managed-kafka",
            ]), "\(kustomizations)")
        for tool in ["kubectl", "kubernetes-validate"] { _ = try Tools.which(tool) }
        let (code, output) = try await Tools.run(DeploymentFiles.path("scripts/deploy-check"), [])
        #expect(code == 0, "scripts/deploy-check:\n\(output)")
    }

    /// The README's and the operations guide's `kubectl apply -k` lines name kustomizations that
    /// render (the test above builds each).
    @Test func theDocumentedApplyLinesNameKustomizations() throws {
        let kustomizations = Set(try DeploymentFiles.kustomizations())
        var named: Set<String> = []
        for document in ["README.md", "docs/operations.md"] {
            let text = try String(contentsOfFile: DeploymentFiles.path(document), encoding: .utf8)
            for match in text.matches(of: /kubectl apply -k (deploy\/[A-Za-z0-9\/_.-]+)/) {
                named.insert(String(match.output.1).trimmingCharacters(in: CharacterSet(charactersIn: "/.`")))
            }
        }
        #expect(named.isSuperset(of: ["deploy/kubernetes/overlays/apple", "deploy/kubernetes/overlays/simulator"]))
        #expect(named.subtracting(kustomizations).isEmpty, "no kustomization at \(named.subtracting(kustomizations))")
    }

    @Test func thePrometheusRuleUsesOnlyWhatTheOperatorDocuments() async throws {
        for overlay in try DeploymentFiles.overlays() {
            let rules = KubernetesProject.resources(try await DeploymentFiles.render(overlay), kind: "PrometheusRule")
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

    /// Every process with an ops port (the workers, iap-reconcile, the gateway, the read API, the
    /// lag exporter) is scraped: a PodMonitor in its namespace selects its pods, on that port, at
    /// /metrics. A Deployment added without the labels, or a port renamed, fails here instead of
    /// leaving its alerts silent.
    @Test func aPodMonitorScrapesEveryProcess() async throws {
        for kustomization in try DeploymentFiles.overlays() + ["deploy/kubernetes/examples/managed-kafka"] {
            let rendered = try await DeploymentFiles.render(kustomization)
            let monitors = KubernetesProject.resources(rendered, kind: "PodMonitor")
            #expect(!monitors.isEmpty, "\(kustomization) ships a PodMonitor")
            for (name, monitor) in monitors {
                let spec = mapping(monitor["spec"])
                let unknown = Set(spec.keys).subtracting(Self.podMonitorSpec)
                #expect(unknown.isEmpty, "PodMonitor \(name): \(unknown.sorted()) are not PodMonitor fields")
                for endpoint in sequence(spec["podMetricsEndpoints"]).map({ mapping($0) }) {
                    let unknown = Set(endpoint.keys).subtracting(Self.podMetricsEndpointFields)
                    #expect(unknown.isEmpty, "PodMonitor \(name): \(unknown.sorted()) are not endpoint fields")
                }
            }
            for (name, deployment) in KubernetesProject.resources(rendered, kind: "Deployment") {
                let template = mapping(mapping(deployment["spec"])["template"])
                let ports = sequence(mapping(template["spec"])["containers"]).flatMap {
                    sequence(mapping($0)["ports"]).compactMap { text(mapping($0)["name"]) }
                }
                guard ports.contains("ops") else { continue }
                let labels = mapping(mapping(template["metadata"])["labels"]).compactMapValues { text($0) }
                let namespace = text(mapping(deployment["metadata"])["namespace"])
                let scraping = monitors.values.filter { monitor in
                    let spec = mapping(monitor["spec"])
                    return text(mapping(monitor["metadata"])["namespace"]) == namespace
                        && Self.selects(mapping(spec["selector"]), labels)
                        && sequence(spec["podMetricsEndpoints"]).map({ mapping($0) }).contains {
                            text($0["port"]) == "ops" && (text($0["path"]) ?? "/metrics") == "/metrics"
                        }
                        && text(spec["jobLabel"]).map { labels[$0] != nil } ?? true
                }
                #expect(!scraping.isEmpty, "\(kustomization): no PodMonitor scrapes Deployment \(name) on ops /metrics")
            }
        }
    }

    /// Whether a label selector (matchLabels, matchExpressions) selects `labels`.
    static func selects(_ selector: [String: Any], _ labels: [String: String]) -> Bool {
        let matchLabels = mapping(selector["matchLabels"]).compactMapValues { text($0) }
        guard matchLabels.allSatisfy({ labels[$0.key] == $0.value }) else { return false }
        return sequence(selector["matchExpressions"]).map { mapping($0) }.allSatisfy { expression in
            let key = text(expression["key"]) ?? ""
            let values = sequence(expression["values"]).compactMap { text($0) }
            switch text(expression["operator"]) {
            case "In": return labels[key].map(values.contains) ?? false
            case "NotIn": return labels[key].map { !values.contains($0) } ?? true
            case "Exists": return labels[key] != nil
            case "DoesNotExist": return labels[key] == nil
            default: return false
            }
        }
    }

    /// Every dashboard compose provisions ships to Kubernetes too: a ConfigMap with Grafana's
    /// sidecar label holding the file as it is.
    @Test func everyDashboardShipsAsASidecarConfigMap() async throws {
        let directory = DeploymentFiles.path("deploy/grafana/dashboards")
        let dashboards = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }
        #expect(dashboards.count >= 2)
        for overlay in try DeploymentFiles.overlays() {
            let configMaps = KubernetesProject.resources(try await DeploymentFiles.render(overlay), kind: "ConfigMap")
                .values.filter { text(mapping(mapping($0["metadata"])["labels"])["grafana_dashboard"]) == "1" }
            for dashboard in dashboards {
                let json = try String(contentsOfFile: directory + "/" + dashboard, encoding: .utf8)
                #expect(
                    configMaps.contains { text(mapping($0["data"])[dashboard]) == json },
                    "\(overlay): no ConfigMap labelled grafana_dashboard=1 holds \(dashboard)")
            }
        }
    }

    @Test func scaledObjectsUseOnlyWhatKEDADocuments() async throws {
        let pipeline = try PipelineFile.load(path: DeploymentFiles.path("pipelines/iap.yaml"))
        let partitions = Dictionary(uniqueKeysWithValues: pipeline.allTopics.map { ($0.name, $0.partitions) })
        for kustomization in try DeploymentFiles.overlays() + ["deploy/kubernetes/examples/managed-kafka"] {
            let rendered = try await DeploymentFiles.render(kustomization)
            let deployments = KubernetesProject.resources(rendered, kind: "Deployment")
            let authentications = KubernetesProject.resources(rendered, kind: "TriggerAuthentication")
            let brokers = text(
                mapping(KubernetesProject.resources(rendered, kind: "ConfigMap")["iap-config"]?["data"])[
                    "KAFKA_BROKERS"])
            for (name, authentication) in authentications {
                let spec = mapping(authentication["spec"])
                let unknown = Set(spec.keys).subtracting(Self.triggerAuthenticationSpec)
                #expect(unknown.isEmpty, "TriggerAuthentication \(name): \(unknown.sorted()) are not its fields")
                for reference in sequence(spec["secretTargetRef"]).map({ mapping($0) }) {
                    #expect(Set(reference.keys) == ["parameter", "name", "key"], "TriggerAuthentication \(name)")
                    #expect(
                        Self.kafkaScalerAuthentication.contains(text(reference["parameter"]) ?? ""),
                        "TriggerAuthentication \(name): \(reference["parameter"] ?? "?") is no Kafka scaler parameter")
                }
            }
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
                    let fields = Set(trigger.keys).subtracting(Self.triggerFields)
                    #expect(fields.isEmpty, "ScaledObject \(name): \(fields.sorted()) are not trigger fields")
                    // Authenticated as the processes are: the cluster's SASL/TLS, when it has them.
                    let authentication = text(mapping(trigger["authenticationRef"])["name"]) ?? ""
                    #expect(
                        authentications[authentication] != nil,
                        "ScaledObject \(name): authenticationRef \(authentication) is no TriggerAuthentication here")
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
                        "\(kustomization): \(name)'s bootstrapServers differ from KAFKA_BROKERS")
                    #expect(text(metadata["consumerGroup"]) == stage.consumerGroup, "\(name): not \(target)'s group")
                    let topic = text(metadata["topic"]) ?? ""
                    #expect(
                        stage.consumedTopics.contains(topic), "\(name): \(topic) is not a topic \(stage.name) reads")
                    largestInput = max(largestInput, partitions[topic] ?? 0)
                }
                let maximum = spec["maxReplicaCount"] as? Int ?? 100
                #expect(maximum <= largestInput, "ScaledObject \(name): more replicas (\(maximum)) than partitions")
            }
        }
    }

    // MARK: Hardening

    @Test func deploymentsAreHardened() async throws {
        for kustomization in try DeploymentFiles.overlays() + ["deploy/kubernetes/examples/managed-kafka"] {
            let rendered = try await DeploymentFiles.render(kustomization)
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
    /// (IAP_SHUTDOWN_GRACE_SECONDS) + the producer's flush (none for the read API) + 5 s.
    @Test func gracePeriodsExceedTheShutdownBudget() async throws {
        func budget(_ executable: String, _ environment: [String: String], preStop: Int) -> Int? {
            let kafkaFree = NativeStack.kafkaFreeExecutables.contains(executable)
            guard NativeStack.workerExecutables.contains(executable) || kafkaFree else { return nil }
            let drain = Int(environment["IAP_SHUTDOWN_GRACE_SECONDS"] ?? "") ?? -1000
            let flush =
                kafkaFree
                ? 0
                : executable == "iap-gateway"
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
            let rendered = try await DeploymentFiles.render(overlay)
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
}
