import Contracts
public import Crypto
public import Foundation

/// The API keys `iap-api` accepts, each scoped to apps, as its keys file holds them: hashed
/// (SHA-256), so the file (or the Kubernetes Secret it comes from) never holds a usable key.
///
/// ```
/// # name          hash                        apps               scopes (default read)
/// backend-game    sha256:5e88489…(64 hex)      com.example.game   read,sign
/// support         sha256:…                    *
/// ```
public struct APIKeyring: Sendable {
    /// What a key may do with the apps it holds.
    public enum Scope: String, CaseIterable, Hashable, Sendable {
        /// The customer, status and history routes.
        case read
        /// Offer signatures: handing out discounts is a power of its own, so a support tool's
        /// read-everything key does not have it unless its line says so.
        case sign
    }

    public struct Key: Sendable, Hashable {
        /// Who holds the key, for logs and metrics (the key itself is never logged).
        public let name: String
        let digest: [UInt8]
        /// The bundle ids the key may use; nil for every app (`*`).
        public let apps: Set<String>?
        public let scopes: Set<Scope>

        public func may(_ scope: Scope, bundleId: String) -> Bool {
            scopes.contains(scope) && (apps?.contains(bundleId) ?? true)
        }
    }

    public let keys: [Key]

    public init(keys: [Key]) {
        self.keys = keys
    }

    /// Reads a keys file; a malformed line is an error naming its number.
    public static func load(path: String) throws(APIKeyringError) -> APIKeyring {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw APIKeyringError("\(path): \(error.localizedDescription)")
        }
        return try parse(text, source: path)
    }

    public static func parse(_ text: String, source: String = "keys file") throws(APIKeyringError) -> APIKeyring {
        var keys: [Key] = []
        for (at, fields) in KeysFileLines.fields(of: text, source: source) {
            guard fields.count == 3 || fields.count == 4 else {
                throw APIKeyringError(
                    "\(at): expected `<name> sha256:<hex> <apps> [<scopes>]`, found \(fields.count) fields")
            }
            guard fields[1].hasPrefix("sha256:"), let digest = Self.hex(fields[1].dropFirst(7)), digest.count == 32
            else {
                throw APIKeyringError("\(at): the hash is `sha256:` and 64 hex digits (never the key itself)")
            }
            guard !keys.contains(where: { $0.name == fields[0] }) else {
                throw APIKeyringError("\(at): the name '\(fields[0])' is used twice")
            }
            let apps = fields[2] == "*" ? nil : Set(fields[2].split(separator: ",").map(String.init))
            var scopes: Set<Scope> = [.read]
            if fields.count == 4 {
                let named = fields[3].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                let known = named.compactMap(Scope.init(rawValue:))
                guard known.count == named.count, !known.isEmpty else {
                    throw APIKeyringError(
                        "\(at): scopes are a comma-separated list of \(Scope.allCases.map(\.rawValue).joined(separator: ", ")); found '\(fields[3])'"
                    )
                }
                scopes = Set(known)
            }
            keys.append(Key(name: fields[0], digest: digest, apps: apps, scopes: scopes))
        }
        return APIKeyring(keys: keys)
    }

    /// The key `presented` is, compared in constant time against every key of the ring (no early
    /// exit on a match or on a differing byte), so timing tells nothing about which bytes matched.
    public func authenticate(_ presented: String) -> Key? {
        let digest = Array(SHA256.hash(data: Data(presented.utf8)))
        var found: Key?
        for key in keys {
            var difference: UInt8 = 0
            for (left, right) in zip(key.digest, digest) { difference |= left ^ right }
            if difference == 0 { found = key }
        }
        return found
    }

    /// A new random key and its keys-file line (what `iap api-key new` prints); the scopes field
    /// is written only when it is not the default `read`.
    public static func newKey(name: String, apps: String, scopes: Set<Scope> = [.read]) -> (key: String, line: String) {
        let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
        let key =
            "iapk_"
            + Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let scopesField =
            scopes == [.read] ? "" : " " + Scope.allCases.filter(scopes.contains).map(\.rawValue).joined(separator: ",")
        return (key, "\(name) \(hashed(key)) \(apps)\(scopesField)")
    }

    /// `sha256:<hex>` of a key, as the keys file holds it.
    public static func hashed(_ key: String) -> String {
        "sha256:" + Digest.hex(SHA256.hash(data: Data(key.utf8)))
    }

    private static func hex(_ text: Substring) -> [UInt8]? {
        guard text.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}

/// A keys file that cannot be used, with the line at fault.
public struct APIKeyringError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
