import Foundation
import TestSupport

/// One topic's schema file read as JSON, for what a validator does not answer: which values an
/// `enum` lists and which properties the schema declares anywhere (`$ref`s followed, within the
/// file and to the files beside it).
struct SchemaDocument {
    let root: [String: Any]

    init(topic: String) throws {
        try self.init(file: "\(topic).schema.json")
    }

    init(file: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(TopicSchemas.directory)/\(file)"))
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw DocumentError(description: "\(file) is not a JSON object")
        }
        self.root = root
    }

    /// The string values of the `enum` at `path` (keys from the root; `null` left out).
    func enumeration(at path: [String]) throws -> [String] {
        var node: Any = root
        for key in path + ["enum"] {
            guard let next = (node as? [String: Any])?[key] else {
                throw DocumentError(description: "no \((path + ["enum"]).joined(separator: "/"))")
            }
            node = next
        }
        return (node as? [Any] ?? []).compactMap { $0 as? String }
    }

    /// Every property path the schema declares, as `a/b` (`[]` for array items).
    func declaredPaths() throws -> Set<String> {
        try self.paths(in: root, at: "")
    }

    private func paths(in node: [String: Any], at prefix: String) throws -> Set<String> {
        var result: Set<String> = []
        if let reference = node["$ref"] as? String {
            let target = try self.resolve(reference)
            result.formUnion(try target.document.paths(in: target.node, at: prefix))
        }
        for (name, child) in node["properties"] as? [String: Any] ?? [:] {
            let path = prefix.isEmpty ? name : "\(prefix)/\(name)"
            result.insert(path)
            if let child = child as? [String: Any] { result.formUnion(try self.paths(in: child, at: path)) }
        }
        if let items = node["items"] as? [String: Any] {
            result.formUnion(try self.paths(in: items, at: "\(prefix)[]"))
        }
        for combinator in ["anyOf", "oneOf", "allOf"] {
            for branch in node[combinator] as? [[String: Any]] ?? [] {
                result.formUnion(try self.paths(in: branch, at: prefix))
            }
        }
        return result
    }

    /// `#/$defs/name` in this file, or another schema file beside it (whole).
    private func resolve(_ reference: String) throws -> (document: SchemaDocument, node: [String: Any]) {
        if reference.hasPrefix("#/") {
            var node: Any = root
            for key in reference.dropFirst(2).split(separator: "/") {
                node = (node as? [String: Any])?[String(key)] as Any
            }
            guard let resolved = node as? [String: Any] else {
                throw DocumentError(description: "unresolved \(reference)")
            }
            return (self, resolved)
        }
        let document = try SchemaDocument(file: reference)
        return (document, document.root)
    }

    struct DocumentError: Error, CustomStringConvertible {
        var description: String
    }
}
