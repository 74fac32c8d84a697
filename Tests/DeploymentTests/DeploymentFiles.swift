import Foundation
import Yams

/// The shipped deployment files as the test reads them: docker-compose.yml (plus override files,
/// merged and interpolated as compose does for what these files use) and the Kubernetes
/// overlays, rendered without kustomize (each `resources` entry, file or directory, in order;
/// `namespace` applied). Patches are refused, so nothing is silently left out of the render.
enum DeploymentFiles {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func path(_ relative: String) -> String { root + "/" + relative }

    /// Every YAML document of a file, as `[String: Any]`.
    static func documents(_ path: String, interpolating variables: [String: String]? = nil) throws -> [[String: Any]] {
        var text = try String(contentsOfFile: path, encoding: .utf8)
        if let variables { text = try interpolate(text, variables, file: path) }
        var sequence = try Yams.load_all(yaml: text)
        var documents: [[String: Any]] = []
        while let document = sequence.next() {
            if let document = document as? [String: Any] { documents.append(document) }
        }
        if let error = sequence.error { throw DeploymentError("\(path): \(error)") }
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

    /// The resources of a kustomization directory, recursively, with its namespace applied.
    static func render(kustomization directory: String) throws -> [[String: Any]] {
        guard let kustomization = try documents(directory + "/kustomization.yaml").first else {
            throw DeploymentError("\(directory)/kustomization.yaml is empty")
        }
        let supported: Set<String> = ["apiVersion", "kind", "namespace", "resources", "images"]
        let unsupported = Set(kustomization.keys).subtracting(supported)
        guard unsupported.isEmpty else {
            throw DeploymentError(
                "\(directory)/kustomization.yaml uses \(unsupported.sorted()), which this test does not render; "
                    + "teach DeploymentFiles.render, or the shipped manifests go unchecked")
        }
        var rendered: [[String: Any]] = []
        for resource in kustomization["resources"] as? [String] ?? [] {
            let path = URL(fileURLWithPath: directory + "/" + resource).standardized.path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw DeploymentError("\(directory)/kustomization.yaml names \(resource), which does not exist")
            }
            rendered += isDirectory.boolValue ? try render(kustomization: path) : try documents(path)
        }
        if let namespace = kustomization["namespace"] as? String {
            rendered = rendered.map { document in
                guard document["kind"] as? String != "Namespace" else { return document }
                var document = document
                var metadata = document["metadata"] as? [String: Any] ?? [:]
                metadata["namespace"] = namespace
                document["metadata"] = metadata
                return document
            }
        }
        return rendered
    }

    /// The overlays every cluster is applied with (`deploy/kubernetes/overlays/*`).
    static func overlays() throws -> [String] {
        let directory = path("deploy/kubernetes/overlays")
        return try FileManager.default.contentsOfDirectory(atPath: directory).sorted().filter {
            FileManager.default.fileExists(atPath: directory + "/" + $0 + "/kustomization.yaml")
        }
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
