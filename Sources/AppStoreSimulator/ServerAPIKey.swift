public import Crypto
import Foundation

/// An In-App Purchase key the simulated Server API accepts bearer tokens from.
///
/// Apple identifies the key by `kid` and the team by `iss`; the simulator checks both when set
/// and verifies the token's ES256 signature with the public half.
public struct ServerAPIKey: Sendable {
    public var keyId: String
    /// The issuer ID tokens must carry; nil accepts any issuer.
    public var issuerId: String?
    public var publicKey: P256.Signing.PublicKey

    public init(keyId: String, issuerId: String? = nil, publicKey: P256.Signing.PublicKey) {
        self.keyId = keyId
        self.issuerId = issuerId
        self.publicKey = publicKey
    }

    /// Accepts tokens signed by the private key in an App Store Connect `.p8` file (PKCS#8 PEM).
    public init(keyId: String, issuerId: String? = nil, p8PEM: String) throws {
        do {
            let privateKey = try P256.Signing.PrivateKey(pemRepresentation: p8PEM)
            self.init(keyId: keyId, issuerId: issuerId, publicKey: privateKey.publicKey)
        } catch {
            throw SimulatorError(.invalidConfiguration, "not a P-256 .p8 private key: \(error)")
        }
    }

    /// A fresh private key in `.p8` form (PKCS#8 PEM, as App Store Connect downloads it), for
    /// tests and local stacks whose workers must sign Server API tokens.
    public static func generateP8() -> String {
        P256.Signing.PrivateKey().pemRepresentation
    }

    /// Loads the `.p8` at `path`, first writing a freshly generated one there if it's missing,
    /// so `iap-dev sim` and the workers it serves can share one key file.
    public static func loadOrCreateP8(keyId: String, issuerId: String? = nil, path: String) throws -> ServerAPIKey {
        let url = URL(fileURLWithPath: path)
        do {
            if !FileManager.default.fileExists(atPath: path) {
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true
                )
                try generateP8().write(to: url, atomically: true, encoding: .utf8)
            }
            return try ServerAPIKey(keyId: keyId, issuerId: issuerId, p8PEM: String(contentsOf: url, encoding: .utf8))
        } catch let error as SimulatorError {
            throw error
        } catch {
            throw SimulatorError(.invalidConfiguration, "cannot read or write the key file \(path): \(error)")
        }
    }
}
