import Foundation
import Testing

/// deploy/kubernetes/examples/several-apps: the apple overlay with components/several-apps, as
/// its comments tell an operator to assemble it. The rendered ConfigMap names the apps file in
/// place of the one app's keys, every process that reads it mounts the Secret it lives in, and
/// verify, confirm and reconcile start with iap-apple made as the component's `kubectl create
/// secret` line makes it (the apps file beside the key).
extension DeploymentEndToEndTests {
    static let severalApps = "deploy/kubernetes/examples/several-apps"

    @Test func theSeveralAppsExampleStartsEveryProcessThatReadsTheAppsFile() async throws {
        let rendered = try await DeploymentFiles.render(Self.severalApps)
        let apple = mapping(KubernetesProject.resources(rendered, kind: "ConfigMap")["iap-apple"]?["data"])
        let appsFile = try #require(text(apple["IAP_APPS"]), "the component sets IAP_APPS")
        #expect(apple["IAP_BUNDLE_ID"] == nil && apple["IAP_APP_APPLE_ID"] == nil, "refused beside IAP_APPS")
        var readers: [String] = []
        for (name, deployment) in KubernetesProject.resources(rendered, kind: "Deployment") {
            let pod = mapping(mapping(deployment["spec"])["template"])
            let container = sequence(mapping(pod["spec"])["containers"]).first.map { mapping($0) } ?? [:]
            let envFrom = sequence(container["envFrom"]).map { text(mapping(mapping($0)["configMapRef"])["name"]) }
            guard envFrom.contains("iap-apple") else { continue }
            readers.append(name)
            let volumes = sequence(mapping(pod["spec"])["volumes"]).map { mapping($0) }
            let secretVolume = volumes.first { text(mapping($0["secret"])["secretName"]) == "iap-apple" }
            let mount = sequence(container["volumeMounts"]).map { mapping($0) }.first {
                text($0["name"]) == text(secretVolume?["name"])
            }
            #expect(
                mount.flatMap { text($0["mountPath"]) }
                    == URL(fileURLWithPath: appsFile).deletingLastPathComponent().path,
                "\(name) reads IAP_APPS but does not mount iap-apple where it points")
        }
        #expect(Set(readers) == ["iap-verify", "iap-confirm", "iap-reconcile"])
        try await Self.withDeployments(rendered, of: Self.severalApps, label: "several-apps") { stack, project, hosts in
            let processes = project.processes.filter { readers.contains($0.name) }
            #expect(processes.count == 3)
            try await stack.start(
                processes, hosts: hosts, aliases: project.aliases.filter { readers.contains($0.value.process) })
        }
    }
}
