import AppStoreModels
import Crypto
import Foundation

/// An In-App Purchase key from App Store Connect (a `.p8`: PEM PKCS#8, P-256) and the ES256
/// compact JWS it signs: the Server API's bearer token (``BearerTokenProvider``) and the
/// StoreKit 2 offer signatures (``OfferSigner``). Holds the key; never describes it.
struct InAppPurchaseKey: Sendable {
    private let key: P256.Signing.PrivateKey

    /// - Parameter role: what the key is for, named in the error a bad file gives.
    init(pem: String, role: String) throws(ConfigurationError) {
        do {
            self.key = try P256.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw ConfigurationError(.invalidSigningKey, "the \(role) is not a PEM PKCS#8 P-256 key (.p8)")
        }
    }

    /// `header.claims.signature`, each base64url, JSON with sorted keys; the header is Apple's
    /// for every JWS signed with such a key (`alg: ES256`, `kid`, `typ: JWT`).
    func compactJWS(keyId: String, claims: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = ["alg": "ES256", "kid": keyId, "typ": "JWT"]
        let signingInput =
            Base64.encodeURL(try encoder.encode(header)) + "." + Base64.encodeURL(try encoder.encode(claims))
        return signingInput + "." + Base64.encodeURL(try key.signature(for: Data(signingInput.utf8)).rawRepresentation)
    }

    /// ECDSA with SHA-256 over `message`, DER-encoded (StoreKit 1's promotional offer).
    func derSignature(for message: some DataProtocol) throws -> Data {
        try key.signature(for: message).derRepresentation
    }
}
