import Foundation
import Testing

/// The images compose and Kubernetes run: the executables they hold are Package.swift's
/// executable products (one list, scripts/image-executables, which the Dockerfile copies: the
/// production image without the developer tools, its `dev` stage with them, D46), every command
/// the files run is in the image it runs in, every third-party image is pinned, and the binaries
/// say the project's version.
extension DeploymentEndToEndTests {
    /// What compose and every rendered Deployment run, checked against the product list of the
    /// image it runs: a service or a Deployment whose executable its image lacks could never
    /// start, and only a service on the `dev` stage may run the developer tools.
    @Test func everyCommandTheFilesRunIsInTheImage() async throws {
        let images: [DeploymentFiles.ImageStage: Set<String>] = [
            .production: try await DeploymentFiles.imageExecutables(),
            .dev: try await DeploymentFiles.imageExecutables(stage: .dev),
        ]
        #expect(images[.production] != images[.dev], "the dev stage adds nothing to the production image")
        var missing: [String] = []
        for files in Self.composeVariants() {
            let document = try ComposeProject.load(files, variables: Self.appleVariables(keyFile: "/dev/null"))
            for (name, service) in mapping(document["services"]).compactMapValues({ $0 as? [String: Any] })
            where ComposeProject.isProjectImage(service) {
                let command =
                    (service["command"] as? [Any])?.compactMap { text($0) }
                    ?? (text(service["command"]) ?? "").split(separator: " ").map(String.init)
                let executable = command.first ?? "(none: the image's CMD)"
                let stage = DeploymentFiles.stage(ofService: service)
                if images[stage]?.contains(executable) != true {
                    let origin = files.joined(separator: " + ")
                    missing.append("\(origin): \(name) runs \(executable) on the \(stage) image")
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
                    let image = text(container["image"]) ?? ""
                    guard image.contains("iap-pipeline") else { continue }
                    // No ENTRYPOINT: the command, or else the first argument, is the executable.
                    let command = sequence(container["command"]).compactMap { text($0) }
                    let executable = command.first ?? sequence(container["args"]).first.flatMap { text($0) } ?? "(none)"
                    if images[DeploymentFiles.stage(ofImage: image)]?.contains(executable) != true {
                        missing.append("\(kustomization): Deployment \(name) runs \(executable) on \(image)")
                    }
                }
            }
        }
        #expect(
            missing.isEmpty,
            """
            not in the image (production: \(images[.production, default: []].sorted()), dev: \
            \(images[.dev, default: []].sorted()), scripts/image-executables [--dev]):
            \(missing.joined(separator: "\n"))
            """)
    }

    /// The other way round: every executable the production image holds is run by a service of
    /// docker-compose.yml and by a Deployment of every overlay, so a new worker product cannot
    /// ship in the image without being deployed (the local stack derives its workers from the
    /// stage list; these files do not).
    @Test func everyImageExecutableIsDeployed() async throws {
        let executables = try await DeploymentFiles.imageExecutables()
        var undeployed: [String] = []
        let document = try ComposeProject.load(
            ["docker-compose.yml"], variables: Self.appleVariables(keyFile: "/dev/null"))
        let composed = Set(
            mapping(document["services"]).values.compactMap { $0 as? [String: Any] }
                .filter(ComposeProject.isProjectImage).compactMap { service in
                    (service["command"] as? [Any])?.first.flatMap { text($0) }
                        ?? (text(service["command"]) ?? "").split(separator: " ").first.map(String.init)
                })
        for executable in executables.subtracting(composed).sorted() {
            undeployed.append("docker-compose.yml: no service runs \(executable)")
        }
        for overlay in try DeploymentFiles.overlays() {
            var deployed: Set<String> = []
            for (_, deployment) in KubernetesProject.resources(
                try await DeploymentFiles.render(overlay), kind: "Deployment")
            {
                let pod = mapping(mapping(mapping(deployment["spec"])["template"])["spec"])
                for container in sequence(pod["containers"]).map({ mapping($0) }) {
                    let command = sequence(container["command"]).compactMap { text($0) }
                    if let executable = command.first ?? sequence(container["args"]).first.flatMap({ text($0) }) {
                        deployed.insert(executable)
                    }
                }
            }
            for executable in executables.subtracting(deployed).sorted() {
                undeployed.append("\(overlay): no Deployment runs \(executable)")
            }
        }
        #expect(undeployed.isEmpty, "image executables nothing deploys:\n\(undeployed.joined(separator: "\n"))")
    }

    /// The Dockerfile copies what scripts/image-executables lists and names no executable itself,
    /// so a new executable product is in the next image without anyone editing a second list;
    /// the developer tools only into the `dev` stage, and the production image is the last stage
    /// (what a plain `docker build .` builds), without them.
    @Test func theDockerfileCopiesThePackagesExecutableProducts() async throws {
        let dockerfile = try String(contentsOfFile: DeploymentFiles.path("Dockerfile"), encoding: .utf8)
        let instructions = dockerfile.split(separator: "\n").filter {
            !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#")
        }
        #expect(instructions.contains { $0.contains("$(scripts/image-executables)") })
        #expect(instructions.contains { $0.contains("$(scripts/image-executables --dev)") })
        for executable in try await DeploymentFiles.imageExecutables(stage: .dev) where executable != "iap" {
            #expect(!instructions.contains { $0.contains(executable) }, "the Dockerfile lists \(executable) by hand")
        }
        let stages = instructions.filter { $0.hasPrefix("FROM ") }
        #expect(
            stages.last?.hasSuffix(" AS production") == true, "the last stage is not the production image: \(stages)")
        let developerTools = instructions.filter { $0.contains("/staging/dev-bin/ /usr/local/bin/") }
        #expect(developerTools.count == 1, "the developer tools are copied into \(developerTools.count) stages")
        if let copy = instructions.firstIndex(where: { $0.contains("/staging/dev-bin/ /usr/local/bin/") }) {
            let stage = instructions[..<copy].last { $0.hasPrefix("FROM ") }
            #expect(stage?.hasSuffix(" AS dev") == true, "the developer tools are copied in \(stage ?? "no stage")")
        }
    }

    /// Every image that is not ours names a version: a tag with at least major.minor, or a digest.
    /// `redis:7` or `debian:bookworm-slim` would change under a rebuild. Ours, in every
    /// kustomization that is applied (all but the base, which leaves the registry and tag to the
    /// overlays), is the registry's image at the project's version (`BuildInfo.version`), the
    /// simulator's `apple` too (`iap-pipeline-dev`, the `dev` stage, at the same version).
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
                    let name = DeploymentFiles.stage(ofImage: image) == .dev ? "iap-pipeline-dev" : "iap-pipeline"
                    if image == name || image.contains("/\(name):") {
                        if kustomization != "deploy/kubernetes/base", !image.hasSuffix("/\(name):" + version) {
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
        for executable in try await DeploymentFiles.imageExecutables(stage: .dev) {
            let (code, output) = try await Tools.run(binaries + "/" + executable, ["--version"])
            #expect(code == 0 && output.hasPrefix(version + " (revision "), "\(executable) --version: \(output)")
        }
    }
}
