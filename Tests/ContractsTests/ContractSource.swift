import Foundation

/// The pipeline's own enumerations as `Sources/Contracts` declares them: the raw values of an
/// `OpenEnumeration`'s `static let`s, read from its source, so a value added in Swift and not in
/// a schema (or the other way round) fails ``TopicSchemaTests`` without anyone updating a list.
enum ContractSource {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/Contracts")

    /// The raw values `struct <type>: OpenEnumeration` declares, in source order.
    static func knownValues(of type: String) throws -> [String] {
        let files =
            FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        for file in files {
            let source = try String(contentsOf: file, encoding: .utf8)
            guard let start = source.range(of: "struct \(type): OpenEnumeration {") else { continue }
            let body = source[start.upperBound...]
            let end = body.range(of: "\n}\n")?.lowerBound ?? body.endIndex
            return body[..<end].matches(of: #/Self\(rawValue: "([^"]+)"\)/#).map { String($0.output.1) }
        }
        throw SourceError(description: "no `struct \(type): OpenEnumeration` in \(directory.path)")
    }

    struct SourceError: Error, CustomStringConvertible {
        var description: String
    }
}
