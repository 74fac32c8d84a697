import Crypto
import Foundation
import Hummingbird

/// Checks the Server API bearer JWT as Apple does and rejects bad ones with a bare 401.
///
/// Apple requires ES256 with a `kid`, and claims `iss`, `iat`, `exp` (at most 60 minutes after
/// `iat`, not passed), `aud` = `appstoreconnect-v1` and `bid`. The accepted `bid` becomes the
/// caller's app: transactions of other bundles are "not found", as on Apple's side.
struct BearerTokenAuthenticator: Sendable {
    let keys: [ServerAPIKey]

    /// The claims the simulator uses after a token passed.
    struct Claims: Decodable {
        let iss: String
        let iat: Double
        let exp: Double
        let aud: String
        let bid: String
    }

    private struct Header: Decodable {
        let alg: String
        let kid: String
        let typ: String?
    }

    /// Returns the token's bundle id, or nil when the request must get a 401.
    func authenticate(_ request: Request, now: Date = Date()) -> String? {
        guard let authorization = request.headers[.authorization],
            authorization.hasPrefix("Bearer ")
        else { return nil }
        let token = authorization.dropFirst("Bearer ".count).trimmingCharacters(in: .whitespaces)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerData = Data(base64URLEncoded: parts[0]),
            let claimsData = Data(base64URLEncoded: parts[1]),
            let signatureData = Data(base64URLEncoded: parts[2]),
            let header = try? JSONDecoder().decode(Header.self, from: headerData),
            let claims = try? JSONDecoder().decode(Claims.self, from: claimsData),
            header.alg == "ES256", !header.kid.isEmpty,
            claims.aud == "appstoreconnect-v1", !claims.iss.isEmpty, !claims.bid.isEmpty,
            claims.exp > now.timeIntervalSince1970, claims.exp - claims.iat <= 3600,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData)
        else { return nil }
        if keys.isEmpty { return claims.bid }
        let signingInput = Data("\(parts[0]).\(parts[1])".utf8)
        let accepted = keys.contains { key in
            key.keyId == header.kid
                && (key.issuerId.map { $0 == claims.iss } ?? true)
                && key.publicKey.isValidSignature(signature, for: signingInput)
        }
        return accepted ? claims.bid : nil
    }
}
