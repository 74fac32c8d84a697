import Foundation
import Synchronization
import Yams

/// The shipped deployment files as the test reads them: docker-compose.yml (plus override files,
/// merged and interpolated as compose does for what these files use), every kustomization under
/// deploy/ as `kubectl kustomize` renders it (the tool `kubectl apply -k` runs), and the image's
/// executables as the Dockerfile lists them (scripts/image-executables).
enum DeploymentFiles {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func path(_ relative: String) -> String { root + "/" + relative }

    /// Every YAML document of a file, as `[String: Any]`.
    static func documents(_ path: String, interpolating variables: [String: String]? = nil) throws -> [[String: Any]] {
        var text = try String(contentsOfFile: path, encoding: .utf8)
        if let variables { text = try interpolate(text, variables, file: path) }
        return try documents(yaml: text, origin: path)
    }

    static func documents(yaml text: String, origin: String) throws -> [[String: Any]] {
        var sequence = try Yams.load_all(yaml: text)
        var documents: [[String: Any]] = []
        while let document = sequence.next() {
            if let document = document as? [String: Any] { documents.append(document) }
        }
        if let error = sequence.error { throw DeploymentError("\(origin): \(error)") }
        return documents
    }

    /// Compose's `${VAR}`, `${VAR:-default}` and `${VAR:?message}`.
    static func interpolate(_ text: String, _ variables: [String: String], file: String) throws -> String {
        let pattern = try NSRegularExpression(pattern: #"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:[-?])([^}]*))?\}"#)
        var result = text
        let matches = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).reversed()
        for match in matches {
            let name = String(text[Range(match.range(at: 1), in: text)!])
            let operation = Range(match.range(at: 2), in: text).map { String(text[$0]) }
            let argument = Range(match.range(at: 3), in: text).map { String(text[$0]) } ?? ""
            let value: String
            if let set = variables[name], !set.isEmpty {
                value = set
            } else if operation == ":?" {
                throw DeploymentError("\(file): \(name) is unset: \(argument)")
            } else {
                value = operation == ":-" ? argument : ""
            }
            result.replaceSubrange(Range(match.range, in: result)!, with: value)
        }
        return result
    }

    /// Compose's merge of an override file: mappings merge key by key, anything else is replaced.
    static func merge(_ base: Any, _ override: Any) -> Any {
        guard let base = base as? [String: Any], let override = override as? [String: Any] else { return override }
        var merged = base
        for (key, value) in override {
            merged[key] = merged[key].map { merge($0, value) } ?? value
        }
        return merged
    }

    /// Every kustomization under deploy/ that `kubectl kustomize` can build (components are
    /// built as part of what includes them), by its path from the repository root.
    static func kustomizations() throws -> [String] {
        let deploy = path("deploy")
        guard let files = FileManager.default.enumerator(atPath: deploy) else { throw DeploymentError("no \(deploy)") }
        var result: [String] = []
        for case let file as String in files where file.hasSuffix("kustomization.yaml") {
            let document = try documents(deploy + "/" + file).first ?? [:]
            guard text(document["kind"]) != "Component" else { continue }
            result.append("deploy/" + String(file.dropLast("/kustomization.yaml".count)))
        }
        return result.sorted()
    }

    /// What `kubectl kustomize <directory>` prints: the manifests `kubectl apply -k` would send.
    /// A missing kubectl fails the test (Tools.which), it does not skip it.
    static func kustomize(_ directory: String) async throws -> String {
        if let cached = rendered.withLock({ $0[directory] }) { return cached }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("iap-kustomize-\(UUID()).yaml").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (code, output) = try await Tools.run("kubectl", ["kustomize", path(directory), "--output", file])
        guard code == 0, let yaml = FileManager.default.contents(atPath: file) else {
            throw DeploymentError("kubectl kustomize \(directory) failed:\n\(output)")
        }
        let text = String(decoding: yaml, as: UTF8.self)
        rendered.withLock { $0[directory] = text }
        return text
    }

    /// The objects `kubectl kustomize <directory>` renders.
    static func render(_ directory: String) async throws -> [[String: Any]] {
        try documents(yaml: try await kustomize(directory), origin: "kubectl kustomize \(directory)")
    }

    private static let rendered = Mutex<[String: String]>([:])

    /// The Dockerfile's two images (decision D46): `production` (its last stage) and `dev`, the
    /// same plus the developer tools, which only the simulator service runs.
    enum ImageStage: Sendable { case production, dev }

    /// The executables an image holds: scripts/image-executables, which the Dockerfile runs to
    /// copy them (every executable product of Package.swift but the developer tools), and for
    /// the `dev` stage also `scripts/image-executables --dev` (the developer tools).
    static func imageExecutables(stage: ImageStage = .production) async throws -> Set<String> {
        let production = try await listedExecutables(developerTools: false)
        return stage == .production ? production : production.union(try await listedExecutables(developerTools: true))
    }

    /// One run of scripts/image-executables, with `--dev` or without.
    private static func listedExecutables(developerTools: Bool) async throws -> Set<String> {
        if let cached = executables.withLock({ $0[developerTools] }) { return cached }
        let arguments = developerTools ? ["--dev"] : []
        let (code, output) = try await Tools.run(path("scripts/image-executables"), arguments)
        guard code == 0 else { throw DeploymentError("scripts/image-executables \(arguments) failed:\n\(output)") }
        // One product name a line; anything else is a diagnostic of swift's on stderr.
        let names = Set(
            output.split(separator: "\n").map(String.init).filter { $0.wholeMatch(of: /[A-Za-z0-9_-]+/) != nil })
        guard !names.isEmpty else { throw DeploymentError("scripts/image-executables \(arguments) listed nothing") }
        executables.withLock { $0[developerTools] = names }
        return names
    }

    private static let executables = Mutex<[Bool: Set<String>]>([:])

    /// The image a compose service runs: the `dev` stage when its build names that target or its
    /// image is `iap-pipeline-dev`.
    static func stage(ofService service: [String: Any]) -> ImageStage {
        let target = text((service["build"] as? [String: Any])?["target"])
        return target == "dev" || (text(service["image"]) ?? "").hasPrefix("iap-pipeline-dev") ? .dev : .production
    }

    /// The image a container runs, by name (`iap-pipeline-dev`, with or without registry and tag).
    static func stage(ofImage image: String) -> ImageStage {
        image.split(separator: "/").last?.split(separator: ":").first == "iap-pipeline-dev" ? .dev : .production
    }

    /// The overlays every cluster is applied with, `deploy/kubernetes/overlays/*`, by path.
    static func overlays() throws -> [String] {
        let directory = path("deploy/kubernetes/overlays")
        return try FileManager.default.contentsOfDirectory(atPath: directory).sorted().filter {
            FileManager.default.fileExists(atPath: directory + "/" + $0 + "/kustomization.yaml")
        }.map { "deploy/kubernetes/overlays/" + $0 }
    }

    /// The compose files: docker-compose.yml and every docker-compose.*.yml override.
    static func composeOverrides() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root).sorted().filter {
            $0.hasPrefix("docker-compose.") && $0.hasSuffix(".yml") && $0 != "docker-compose.yml"
        }
    }
}

/// A scalar of a YAML document as text (compose and Kubernetes take numbers and booleans as text).
func text(_ value: Any?) -> String? {
    switch value {
    case let string as String: return string
    case let bool as Bool: return bool ? "true" : "false"
    case let int as Int: return String(int)
    case let double as Double: return String(double)
    default: return nil
    }
}

func mapping(_ value: Any?) -> [String: Any] { value as? [String: Any] ?? [:] }

func sequence(_ value: Any?) -> [Any] { value as? [Any] ?? [] }

struct DeploymentError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
