import Foundation
import Kafka
import Testing

/// deploy/kubernetes/examples/managed-kafka: the apple overlay with components/kafka-sasl-ssl,
/// as docs/operations.md ("Managed Kafka") tells an operator to assemble it. Nothing here runs
/// SASL (librdkafka's mock cluster speaks no SASL): the render is held to what every process
/// and KEDA need, and `iap config check` (which builds a librdkafka client from the settings)
/// accepts each Deployment's environment.
extension DeploymentEndToEndTests {
    static let managedKafka = "deploy/kubernetes/examples/managed-kafka"

    @Test func theManagedKafkaExampleAuthenticatesEveryProcessAndKEDA() async throws {
        let rendered = try await DeploymentFiles.render(Self.managedKafka)
        let config = mapping(KubernetesProject.resources(rendered, kind: "ConfigMap")["iap-config"]?["data"])
        #expect(text(config["IAP_KAFKA_SECURITY_PROTOCOL"]) == "SASL_SSL")
        let mechanism = text(config["IAP_KAFKA_SASL_MECHANISMS"]) ?? ""
        #expect(
            ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"].contains(mechanism), "IAP_KAFKA_SASL_MECHANISMS \(mechanism)")

        // Every process that talks to Kafka reads the credentials from the Secret iap-kafka; the
        // read API, which reads Redis only, is handed none.
        var processes = 0
        var kafkaFree = 0
        for (name, deployment) in KubernetesProject.resources(rendered, kind: "Deployment") {
            let container = mapping(
                sequence(mapping(mapping(mapping(deployment["spec"])["template"])["spec"])["containers"]).first)
            guard sequence(container["ports"]).contains(where: { text(mapping($0)["name"]) == "ops" }) else { continue }
            var fromSecret: [String: String] = [:]
            for entry in sequence(container["env"]).map({ mapping($0) }) {
                let reference = mapping(mapping(entry["valueFrom"])["secretKeyRef"])
                if text(reference["name"]) == "iap-kafka", let key = text(entry["name"]) {
                    fromSecret[key] = text(reference["key"])
                }
            }
            let executable = sequence(container["args"]).first.flatMap { text($0) } ?? ""
            if NativeStack.kafkaFreeExecutables.contains(executable) {
                kafkaFree += 1
                #expect(fromSecret.isEmpty, "Deployment \(name) talks to no Kafka but gets its credentials")
                continue
            }
            processes += 1
            #expect(
                fromSecret == ["IAP_KAFKA_SASL_USERNAME": "username", "IAP_KAFKA_SASL_PASSWORD": "password"],
                "Deployment \(name) does not read its Kafka credentials from the Secret iap-kafka")
        }
        #expect(processes == 9, "the six workers, iap-reconcile, the gateway and the lag exporter")
        #expect(kafkaFree == 1, "the read API")

        // KEDA reads the same Secret, in its own terms.
        let authentication = try #require(
            KubernetesProject.resources(rendered, kind: "TriggerAuthentication")["iap-kafka"])
        var parameters: [String: String] = [:]
        for reference in sequence(mapping(authentication["spec"])["secretTargetRef"]).map({ mapping($0) }) {
            #expect(text(reference["name"]) == "iap-kafka")
            parameters[text(reference["parameter"]) ?? ""] = text(reference["key"])
        }
        #expect(parameters == ["sasl": "sasl", "username": "username", "password": "password", "tls": "tls"])

        // The settings each process starts with are accepted, librdkafka's client included.
        try await Self.withDeployments(rendered, of: Self.managedKafka, label: "managed-kafka") {
            stack, project, hosts in
            try await stack.checkSettings(project.processes, hosts: hosts, aliases: project.aliases)
        }
    }
}
