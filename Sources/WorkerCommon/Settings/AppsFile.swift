import AppStoreModels
import Foundation
import Purchases
import Settings
import Yams

/// The apps file (`IAP_APPS`, decision D57): the apps one deployment serves, and what differs
/// between them. A field left out takes the deployment's own key (`IAP_ENVIRONMENT`,
/// `IAP_ACCEPT_SANDBOX`, `IAP_ACCEPT_XCODE`, the `IAP_APPLE_` key); `appAppleId` is each app's own.
///
/// ```yaml
/// apps:
///   - bundleId: com.example.game
///     appAppleId: 1234567890
///   - bundleId: com.example.puzzle
///     environment: Sandbox            # Production or Sandbox
///     acceptSandbox: true
///     acceptXcode: false
///     appleKey:                        # another team's key; a relative path is next to this file
///       keyId: 2X9R4HXF34
///       issuerId: 57246542-96fe-1a63-e053-0824d011072a
///       privateKeyPath: puzzle.p8
/// ```
///
/// Strict like the catalog: an unknown field, an app listed twice or a value of the wrong kind
/// is refused with its line, since a typo here sends a game's purchases to `unknown_app`.
enum AppsFile {
    static let appFields = ["bundleId", "appAppleId", "environment", "acceptSandbox", "acceptXcode", "appleKey"]
    static let keyFields = ["keyId", "issuerId", "privateKeyPath"]

    /// What a field left out takes.
    struct Defaults {
        var environmentPolicy: EnvironmentPolicy
        var appleKey: AppSettings.AppleKey?
    }

    /// Reads and checks the file at `path`.
    static func load(path: String, defaults: Defaults) throws(SettingsError) -> [AppSettings] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw SettingsError(
                .unreadableFile, key: StageSettings.appsKey.name,
                "cannot read IAP_APPS \(path): \(error.localizedDescription)")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return try parse(text, source: path, directory: directory, defaults: defaults)
    }

    /// Parses YAML text; `source` names it in errors, `directory` anchors relative key paths.
    static func parse(_ text: String, source: String, directory: String, defaults: Defaults) throws(SettingsError)
        -> [AppSettings]
    {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw refusal(source, nil, "is not YAML: \(error)")
        }
        guard let root, let document = root.mapping else {
            throw refusal(source, root, "is a mapping with one field, apps")
        }
        try checkFields(document, allowed: ["apps"], in: "the file", source)
        guard let list = document["apps"]?.sequence, !list.isEmpty else {
            throw refusal(source, root, "lists no apps (apps: a list of at least one app)")
        }
        var apps: [AppSettings] = []
        for node in list {
            let app = try self.app(node, source: source, directory: directory, defaults: defaults)
            guard !apps.contains(where: { $0.bundleId == app.bundleId }) else {
                throw refusal(source, node, "lists app '\(app.bundleId)' twice")
            }
            apps.append(app)
        }
        return apps
    }

    private static func app(_ node: Node, source: String, directory: String, defaults: Defaults)
        throws(SettingsError) -> AppSettings
    {
        guard let fields = node.mapping else {
            throw refusal(source, node, "an app is a mapping of \(appFields.joined(separator: ", "))")
        }
        try checkFields(fields, allowed: appFields, in: "an app", source)
        guard let bundleId = fields["bundleId"]?.scalar?.string, isIdentifier(bundleId) else {
            throw refusal(source, node, "an app needs a bundleId (a name without spaces)")
        }
        let what = "app '\(bundleId)'"
        var app = AppSettings(
            bundleId: bundleId, environmentPolicy: defaults.environmentPolicy, appleKey: defaults.appleKey,
            gateScope: bundleId)
        if let value = fields["appAppleId"] {
            guard let id = value.int, id > 0 else {
                throw refusal(source, value, "\(what): appAppleId is a positive number")
            }
            app.appAppleId = Int64(id)
        }
        if let value = fields["environment"] {
            switch value.scalar?.string {
            case "Production": app.environmentPolicy.deployment = .production
            case "Sandbox": app.environmentPolicy.deployment = .sandbox
            default: throw refusal(source, value, "\(what): environment is Production or Sandbox")
            }
        }
        if let value = fields["acceptSandbox"] {
            guard let flag = value.bool else { throw refusal(source, value, "\(what): acceptSandbox is true or false") }
            app.environmentPolicy.acceptSandboxInProduction = flag
        }
        if let value = fields["acceptXcode"] {
            guard let flag = value.bool else { throw refusal(source, value, "\(what): acceptXcode is true or false") }
            app.environmentPolicy.acceptXcode = flag
        }
        if let value = fields["appleKey"] {
            app.appleKey = try appleKey(value, of: what, source: source, directory: directory)
        }
        return app
    }

    private static func appleKey(_ node: Node, of what: String, source: String, directory: String)
        throws(SettingsError) -> AppSettings.AppleKey
    {
        guard let fields = node.mapping else {
            throw refusal(source, node, "\(what): appleKey is a mapping of \(keyFields.joined(separator: ", "))")
        }
        try checkFields(fields, allowed: keyFields, in: "\(what)'s appleKey", source)
        var values: [String] = []
        for name in keyFields {
            guard let value = fields[name]?.scalar?.string, !value.isEmpty else {
                throw refusal(source, node, "\(what)'s appleKey has no \(name)")
            }
            values.append(value)
        }
        let path = values[2].hasPrefix("/") ? values[2] : directory + "/" + values[2]
        return AppSettings.AppleKey(keyId: values[0], issuerId: values[1], privateKeyPath: path)
    }

    private static func checkFields(_ mapping: Node.Mapping, allowed: [String], in what: String, _ source: String)
        throws(SettingsError)
    {
        for (key, _) in mapping {
            guard let name = key.scalar?.string, allowed.contains(name) else {
                throw refusal(
                    source, key,
                    "\(what) has no field '\(key.scalar?.string ?? "?")' (fields: \(allowed.joined(separator: ", ")))")
            }
        }
    }

    private static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty && !text.contains(where: \.isWhitespace)
    }

    private static func refusal(_ source: String, _ node: Node?, _ message: String) -> SettingsError {
        let line = node?.mark.map { ":\($0.line)" } ?? ""
        return SettingsError(.invalidValue, key: StageSettings.appsKey.name, "IAP_APPS \(source)\(line): \(message)")
    }
}
