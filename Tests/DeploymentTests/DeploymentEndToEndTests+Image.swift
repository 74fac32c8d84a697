import Foundation
import Testing

/// The image compose and Kubernetes run: the executables it holds are Package.swift's
/// executable products (one list, scripts/image-executables, which the Dockerfile copies), every
/// command the files run is among them, every third-party image is pinned, and the binaries say
/// the project's version.
extension DeploymentEndToEndTests {
    /// What compose and every rendered Deployment run, checked against the image's product list:
    /// a service or a Deployment whose executable the image lacks could never start.
    @Test func everyCommandTheFilesRunIsInTheImage() async throws {
        let image = try await DeploymentFiles.imageExecutables()
        var missing: [String] = []
        for files in Self.composeVariants() {
            let document = try ComposeProject.load(files, variables: Self.appleVariables(keyFile: "/dev/null"))
            for (name, service) in mapping(document["services"]).compactMapValues({ $0 as? [String: Any] })
            where ComposeProject.isProjectImage(service) {
                let command =
                    (service["command"] as? [Any])?.compactMap { text($0) }
                    ?? (text(service["command"]) ?? "").split(separator: " ").map(String.init)
                let executable = command.first ?? "(none: the image's CMD)"
                if !image.contains(executable) {
                    missing.append("\(files.joined(separator: " + ")): \(name) runs \(executable)")
                }
            }
        }
        for kustomization in try DeploymentFiles.kustomizations() {
            for (name, deployment) in KubernetesProject.resources(
                try await DeploymentFiles.render(kustomization), kind: "Deployment")
            {
                let pod = mapping(mapping(mapping(deployment["spec"])["template"])["spec"])
                for container in sequence(pod["containers"]) + sequence(pod["initContainers"]) {
                    let container = mapping(container)
                    guard (text(container["image"]) ?? "").contains("iap-pipeline") else { continue }
                    // No ENTRYPOINT: the command, or else the first argument, is the executable.
                    let command = sequence(container["command"]).compactMap { text($0) }
                    let executable = command.first ?? sequence(container["args"]).first.flatMap { text($0) } ?? "(none)"
                    if !image.contains(executable) {
                        missing.append("\(kustomization): Deployment \(name) runs \(executable)")
                    }
                }
            }
        }
        #expect(
            missing.isEmpty,
            "not in the image (\(image.sorted()), scripts/image-executables):\n\(missing.joined(separator: "\n"))")
    }

    /// The Dockerfile copies what scripts/image-executables lists and names no executable itself,
    /// so a new executable product is in the next image without anyone editing a second list.
    @Test func theDockerfileCopiesThePackagesExecutableProducts() async throws {
        let dockerfile = try String(contentsOfFile: DeploymentFiles.path("Dockerfile"), encoding: .utf8)
        let instructions = dockerfile.split(separator: "\n").filter {
            !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#")
        }
        #expect(instructions.contains { $0.contains("$(scripts/image-executables)") })
        for executable in try await DeploymentFiles.imageExecutables() where executable != "iap" {
            #expect(!instructions.contains { $0.contains(executable) }, "the Dockerfile lists \(executable) by hand")
        }
    }

    /// Every image that is not ours names a version: a tag with at least major.minor, or a digest.
    /// `redis:7` or `debian:bookworm-slim` would change under a rebuild. Ours, in every
    /// kustomization that is applied (all but the base, which leaves the registry and tag to the
    /// overlays), is the registry's image at the project's version (`BuildInfo.version`), the
    /// simulator's `apple` too.
    @Test func everyImageIsPinned() async throws {
        let version = Self.projectVersion
        var images: [(origin: String, image: String)] = []
        for files in Self.composeVariants() {
            let document = try ComposeProject.load(files, variables: Self.appleVariables(keyFile: "/dev/null"))
            for (name, service) in mapping(document["services"]).compactMapValues({ $0 as? [String: Any] })
            where !ComposeProject.isProjectImage(service) {
                images.append(("\(files.joined(separator: " + ")): \(name)", text(service["image"]) ?? ""))
            }
        }
        var ours: [String] = []
        for kustomization in try DeploymentFiles.kustomizations() {
            for document in try await DeploymentFiles.render(kustomization) {
                let pod = mapping(mapping(mapping(document["spec"])["template"])["spec"])
                for container in sequence(pod["containers"]) + sequence(pod["initContainers"]) {
                    let image = text(mapping(container)["image"]) ?? ""
                    if image == "iap-pipeline" || image.contains("/iap-pipeline:") {
                        if kustomization != "deploy/kubernetes/base", !image.hasSuffix("/iap-pipeline:" + version) {
                            ours.append(
                                "\(kustomization): \(text(mapping(document["metadata"])["name"]) ?? "?") runs \(image)")
                        }
                    } else {
                        images.append((kustomization, image))
                    }
                }
            }
        }
        #expect(ours.isEmpty, "not the project's image at \(version) (\(Self.imageComponent)): \(ours)")
        let dockerfile = try String(contentsOfFile: DeploymentFiles.path("Dockerfile"), encoding: .utf8)
        for match in dockerfile.matches(of: /(?m)^ARG [A-Z_]+_IMAGE=(\S+)$/) {
            images.append(("Dockerfile", String(match.output.1)))
        }
        #expect(images.count >= 6)
        let unpinned = images.filter {
            $0.image.wholeMatch(of: /[^:@\s]+(:v?[0-9]+\.[0-9]+[^\s]*|@sha256:[0-9a-f]{64})/) == nil
        }
        #expect(unpinned.isEmpty, "pin these to a version: \(unpinned.map { "\($0.origin): \($0.image)" })")
    }

    /// `--version` of every executable the image holds says the project's version (the one the
    /// overlays tag the image with, checked above); the processes' `iap_build_info` is checked as
    /// each starts (NativeStack).
    @Test func everyExecutableSaysTheProjectsVersion() async throws {
        let version = Self.projectVersion
        let binaries = ProcessInfo.processInfo.environment["IAP_BIN_DIR"] ?? DeploymentFiles.path(".build/debug")
        for executable in try await DeploymentFiles.imageExecutables() {
            let (code, output) = try await Tools.run(binaries + "/" + executable, ["--version"])
            #expect(code == 0 && output.hasPrefix(version + " (revision "), "\(executable) --version: \(output)")
        }
    }
}
