import Foundation

/// Real Apple-signed vectors copied from Tests/AppStoreTests/Vectors (see its README and
/// MANIFEST.json for sources and decoded values).
enum Fixtures {
    static func text(_ path: String) throws -> String {
        guard let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw CocoaError(.fileNoSuchFile)
        }
        return try String(contentsOf: url.appendingPathComponent(path), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
