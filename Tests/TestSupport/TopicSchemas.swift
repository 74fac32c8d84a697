import Foundation
import Processes

/// The JSON Schemas of `docs/schemas`, one per topic (`<topic>.schema.json`), applied by a real
/// validator: `check-jsonschema`, which `make setup` installs. What a test asserts about a
/// record's shape is then what the published schema says, not what a checker of our own thinks.
public enum TopicSchemas {
    public static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/schemas").path

    public static func path(forTopic topic: String) -> String { "\(directory)/\(topic).schema.json" }

    /// The topics that have a schema file.
    public static func topics() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".schema.json") }
            .map { String($0.dropLast(".schema.json".count)) }
            .sorted()
    }

    /// What check-jsonschema reports against each of `instances` that does not validate against
    /// `topic`'s schema (or is not JSON), by index into `instances`; empty when all validate.
    /// Throws when the validator itself could not run: a missing tool, schema or broken schema
    /// is a failure of the test, never a pass.
    public static func violations(of instances: [[UInt8]], topic: String) async throws -> [Int: [String]] {
        guard !instances.isEmpty else { return [:] }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "iap-schema-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = instances.indices.map { directory.appendingPathComponent("\($0).json").path }
        for (file, instance) in zip(files, instances) {
            try Data(instance).write(to: URL(fileURLWithPath: file))
        }
        let completion = try await ChildProcess.run(
            "check-jsonschema", ["--output-format", "json", "--schemafile", path(forTopic: topic)] + files)
        guard let report = Self.report(in: completion.output), completion.exitCode == 0 || completion.exitCode == 1
        else {
            throw SchemaValidationError(description: "check-jsonschema could not check \(topic): \(completion.output)")
        }
        let index = Dictionary(uniqueKeysWithValues: files.enumerated().map { ($0.element, $0.offset) })
        var violations: [Int: [String]] = [:]
        for problem in (report.errors ?? []) + (report.parseErrors ?? []) {
            guard let position = index[problem.filename] else {
                throw SchemaValidationError(description: "check-jsonschema reported \(problem.filename): \(problem)")
            }
            violations[position, default: []].append(
                problem.path.map { "\($0): \(problem.message)" } ?? problem.message)
        }
        return violations
    }

    /// check-jsonschema's `--output-format json` report, read from its output (which may carry
    /// warnings around it).
    private static func report(in output: String) -> Report? {
        guard let start = output.firstIndex(of: "{"), let end = output.lastIndex(of: "}") else { return nil }
        return try? JSONDecoder().decode(Report.self, from: Data(output[start...end].utf8))
    }

    private struct Report: Decodable {
        struct Problem: Decodable {
            var filename: String
            var path: String?
            var message: String
        }
        /// Absent when there were none.
        var errors: [Problem]?
        var parseErrors: [Problem]?

        enum CodingKeys: String, CodingKey {
            case errors
            case parseErrors = "parse_errors"
        }
    }
}

public struct SchemaValidationError: Error, CustomStringConvertible {
    public var description: String
}
