public import ArgumentParser
import ReadAPI

/// `iap api-key new`: a new key for the read API and the line of its keys file. The key is
/// printed once and stored nowhere; the keys file (or its Kubernetes Secret) holds its hash.
struct APIKeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "api-key",
        abstract: "Make API keys for iap-api, the read API (docs/api.md).",
        subcommands: [New.self]
    )

    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a new API key and the line to add to IAP_API_KEYS_FILE (only the key's SHA-256).")

        @Option(help: "Who holds the key: shown in iap-api's logs instead of the key.") var name: String
        @Option(
            name: .customLong("app"),
            help: "A bundle id the key may read (repeatable); omit for every app (a support tool's key).")
        var apps: [String] = []
        @Option(
            name: .customLong("scope"),
            help: "What the key may do (repeatable): read (the default) and sign (offer signatures).")
        var scopes: [APIKeyring.Scope] = [.read]

        func validate() throws {
            guard !name.isEmpty, !name.contains(where: \.isWhitespace) else {
                throw ValidationError("--name is one word: it is a field of the keys file")
            }
            guard apps.allSatisfy({ !$0.isEmpty && !$0.contains(",") && !$0.contains(where: \.isWhitespace) }) else {
                throw ValidationError("--app is a bundle id")
            }
        }

        func run() {
            let (key, line) = APIKeyring.newKey(
                name: name, apps: apps.isEmpty ? "*" : apps.joined(separator: ","), scopes: Set(scopes))
            print("key (give it to the backend; it is not stored anywhere): \(key)")
            print("keys file line: \(line)")
        }
    }
}

/// `--scope read`, `--scope sign`.
extension APIKeyring.Scope: ExpressibleByArgument {}
