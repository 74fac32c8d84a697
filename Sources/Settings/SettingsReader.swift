import Configuration
public import Foundation
import SystemPackage

/// Where every executable reads its settings, through swift-configuration: the environment
/// first, then an optional settings file, then each key's default.
///
/// The file (`IAP_CONFIG_FILE`) holds the same `NAME=value` lines as the environment (a
/// Kubernetes ConfigMap or a compose `env_file` can be mounted as is), so a key has one name
/// everywhere. Empty values count as unset.
public struct SettingsReader: Sendable {
    /// Where a value came from, as `iap config check` shows it.
    public enum Source: String, Sendable {
        case environment, file
        case `default` = "default"
    }

    public static let file = Setting<String>.text(
        "IAP_CONFIG_FILE", "A settings file of `NAME=value` lines read after the environment (the environment wins)"
    )

    private let config: ConfigReader
    private let environment: [String: String]
    private let fileNames: Set<String>
    /// The settings file that was read, if any.
    public let filePath: String?

    /// The environment only, without a settings file (tests and tools that build settings
    /// from a dictionary).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
        self.config = ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: environment))
        self.fileNames = []
        self.filePath = nil
    }

    private init(environment: [String: String], file: EnvironmentVariablesProvider, path: String, names: Set<String>) {
        self.environment = environment
        self.config = ConfigReader(providers: [EnvironmentVariablesProvider(environmentVariables: environment), file])
        self.fileNames = names
        self.filePath = path
    }

    /// The environment, then the file `IAP_CONFIG_FILE` names when it is set (a missing or
    /// unreadable file is an error: a deployment that names one expects it to be read).
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment)
        async throws(SettingsError) -> SettingsReader
    {
        let plain = SettingsReader(environment: environment)
        guard let path = try plain.optional(file) else { return plain }
        do {
            let provider = try await EnvironmentVariablesProvider(
                environmentFilePath: FilePath(path), allowMissing: false)
            let contents = try String(contentsOfFile: path, encoding: .utf8)
            return SettingsReader(
                environment: environment, file: provider, path: path, names: Self.names(inFile: contents))
        } catch {
            throw SettingsError(.unreadableFile, key: file.name, "cannot read \(path): \(error)")
        }
    }

    /// The value of a key that has a default.
    public func value<Value>(_ setting: Setting<Value>) throws(SettingsError) -> Value {
        if let value = try optional(setting) { return value }
        guard let text = setting.descriptor.defaultText, let value = setting.parse(text) else {
            preconditionFailure("\(setting.name) has no valid default; read it with optional(_:) or required(_:by:)")
        }
        return value
    }

    /// The value of a key with no default, nil when it is not set.
    public func optional<Value>(_ setting: Setting<Value>) throws(SettingsError) -> Value? {
        guard let (text, source) = lookup(setting.name) else { return nil }
        guard let value = setting.parse(text) else {
            let shown = setting.descriptor.isSecret ? "***" : "'\(text)'"
            throw SettingsError(
                .invalidValue, key: setting.name,
                "\(setting.name) must be \(setting.descriptor.expectation), not \(shown) (from the \(source.rawValue))")
        }
        return value
    }

    /// The value of a key that `user` cannot run without.
    public func required<Value>(_ setting: Setting<Value>, by user: String) throws(SettingsError) -> Value {
        guard let value = try optional(setting) else {
            throw SettingsError(
                .missing, key: setting.name, "\(setting.name) is required by \(user): \(setting.descriptor.summary)")
        }
        return value
    }

    /// The text of `name` and where it came from; nil when neither the environment nor the
    /// file sets it to something other than spaces.
    public func lookup(_ name: String) -> (text: String, source: Source)? {
        guard let raw = config.string(forKey: ConfigKey(Self.configKey(name))) else { return nil }
        let text = raw.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return nil }
        let fromEnvironment = environment[name].map { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? false
        return (text, fromEnvironment ? .environment : .file)
    }

    /// Every name set in the environment or the file that starts with `prefix`, with its value
    /// (the environment wins), e.g. the `IAP_KAFKA_` pass-through properties.
    public func values(withPrefix prefix: String) -> [String: String] {
        var result: [String: String] = [:]
        for name in names where name.hasPrefix(prefix) {
            if let (text, _) = lookup(name) { result[name] = text }
        }
        return result
    }

    /// Every name the environment or the file sets.
    public var names: Set<String> { Set(environment.keys).union(fileNames) }

    /// `IAP_OPS_PORT` is the config key `iap.ops.port`, which swift-configuration's
    /// environment provider maps back to `IAP_OPS_PORT`.
    private static func configKey(_ name: String) -> [String] {
        name.lowercased().split(separator: "_", omittingEmptySubsequences: false).map(String.init)
    }

    /// The names of a `NAME=value` file, by the rule swift-configuration parses it with:
    /// trimmed lines, `#` comments, the first `=` separates.
    private static func names(inFile contents: String) -> Set<String> {
        Set(
            contents.split(separator: "\n").compactMap { line in
                let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = parts[0].trimmingCharacters(in: .whitespaces)
                return parts.count == 2 && !name.isEmpty && !name.hasPrefix("#") ? name : nil
            })
    }
}
