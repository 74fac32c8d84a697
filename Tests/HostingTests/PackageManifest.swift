import Foundation
import Processes

/// `Package.swift` as SwiftPM itself evaluates it (`swift package dump-package`), so the
/// architecture guard reads the real manifest instead of matching its Swift text with regexes.
struct PackageManifest: Sendable, Decodable {
    var targets: [DeclaredTarget]
    /// The packages this one depends on (`.package(url:…)`); absent in hand-written test JSON.
    var dependencies: [PackageDependency] = []

    private enum CodingKeys: String, CodingKey { case targets, dependencies }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        targets = try container.decode([DeclaredTarget].self, forKey: .targets)
        dependencies = try container.decodeIfPresent([PackageDependency].self, forKey: .dependencies) ?? []
    }

    /// The manifest of the package at `root`. `swift` is the one on `PATH`: the tests run inside
    /// `swift test`, so it is the toolchain that builds them. `swift test` holds the lock of the
    /// package's `.build` while the tests run, so `dump-package` gets a scratch path of its own
    /// (it only evaluates the manifest, and leaves that path empty).
    static func dump(packageAt root: URL) async throws -> PackageManifest {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("iap-scratch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let json = try await runSwift([
            "package", "--package-path", root.path, "--scratch-path", scratch.path, "dump-package",
        ])
        return try JSONDecoder().decode(PackageManifest.self, from: json)
    }

    /// Runs `swift arguments` and returns its standard output. A ``ChildProcess`` with each
    /// stream in a file of its own (a warning on stderr must not spoil the JSON, a large manifest
    /// must not fill a pipe), not Foundation's `Process`: its `run()` on Linux crashes now and
    /// then reading `/proc/self/fd` past a buffer (swift-corelibs-foundation #5472), and a test
    /// process holds many descriptors. A run past `timeout` (a SwiftPM waiting on a lock, say) is
    /// killed and reported; the wait suspends, so the other tests keep their threads.
    private static func runSwift(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> Data {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("iap-dump-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("stdout")
        let errors = directory.appendingPathComponent("stderr")
        let child = try ChildProcess(
            name: "swift", executable: try locateSwift(), arguments: arguments,
            output: .files(output: output.path, errors: errors.path))
        let status = await withTaskGroup(of: Int32?.self) { group -> Int32? in
            group.addTask { await child.waitForExit() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            // Ran too long: killing it lets the wait for its exit return.
            if first == nil { child.crash() }
            group.cancelAll()
            return first
        }
        guard let status else {
            throw ManifestError("swift \(arguments.joined(separator: " ")) ran longer than \(timeout)")
        }
        guard status == 0 else {
            let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw ManifestError("swift \(arguments.joined(separator: " ")) exited \(status): \(stderr)")
        }
        return try Data(contentsOf: output)
    }

    /// The `swift` driver on `PATH`.
    private static func locateSwift() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":")
        where FileManager.default.isExecutableFile(atPath: "\(directory)/swift") {
            return "\(directory)/swift"
        }
        throw ManifestError("swift is not on PATH (\(path))")
    }
}

/// Why the manifest could not be read.
struct ManifestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One target of the manifest: its kind, where its sources are and what it depends on.
struct DeclaredTarget: Sendable, Equatable {
    var name: String
    /// `regular`, `executable`, `test`, `system`, … as `dump-package` spells the target's type.
    var kind: String
    /// The target's `path:`, when it declares one.
    var path: String?
    /// Targets of this package it depends on (`"Name"`, `.target(name:)`).
    var projectDependencies: Set<String> = []
    /// Products of other packages it depends on (`.product(name:package:)`), by product name.
    var productDependencies: Set<String> = []
    /// The packages of those products, as `package:` names them (`swift-nio`, `Yams`).
    var productPackages: Set<String> = []

    /// Where SwiftPM reads the target's sources: its `path:`, else `Tests/<name>` for a test
    /// target and `Sources/<name>` for any other.
    var sourcePath: String { path ?? (kind == "test" ? "Tests/\(name)" : "Sources/\(name)") }
}

extension DeclaredTarget: Decodable {
    private enum CodingKeys: String, CodingKey { case name, type, path, dependencies }

    /// The cases of a dependency in the dump: `{"byName": ["Basics", null]}`, `{"target": [...]}`,
    /// `{"product": ["Logging", "swift-log", null, null]}`; each array starts with the name.
    private enum DependencyKeys: String, CodingKey { case byName, target, product }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        kind = try container.decode(String.self, forKey: .type)
        path = try container.decodeIfPresent(String.self, forKey: .path)
        var dependencies = try container.nestedUnkeyedContainer(forKey: .dependencies)
        while !dependencies.isAtEnd {
            let dependency = try dependencies.nestedContainer(keyedBy: DependencyKeys.self)
            // A kind of dependency this guard does not know would otherwise pass unchecked.
            guard let key = dependency.allKeys.first else {
                throw DecodingError.dataCorruptedError(
                    in: dependencies,
                    debugDescription: "\(name): a dependency that is neither byName, target nor product")
            }
            var fields = try dependency.nestedUnkeyedContainer(forKey: key)
            let dependencyName = try fields.decode(String.self)
            if key == .product {
                productDependencies.insert(dependencyName)
                productPackages.insert(try fields.decode(String.self))
            } else {
                projectDependencies.insert(dependencyName)
            }
        }
    }
}

/// A package the manifest depends on, by identity (`swift-nio`, `yams`: its URL's last component,
/// lowercased), whatever its kind: `{"sourceControl": [{"identity": …, …}]}`, `fileSystem`, `registry`.
struct PackageDependency: Sendable, Equatable, Decodable {
    var identity: String

    private struct Kind: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private enum FieldKeys: String, CodingKey { case identity }

    init(identity: String) { self.identity = identity }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Kind.self)
        guard let kind = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "a dependency of no kind"))
        }
        var fields = try container.nestedUnkeyedContainer(forKey: kind)
        identity = try fields.nestedContainer(keyedBy: FieldKeys.self).decode(String.self, forKey: .identity)
    }
}
