import Foundation
import Synchronization

/// Signs the App Store Server API bearer JWT (ES256 with an In-App Purchase `.p8` key).
///
/// `iat` is back-dated 60 s because a worker clock slightly ahead of Apple's yields 401s, and
/// `exp` is 5 minutes after `iat` like Apple's libraries (the hard ceiling is 60). A token is
/// reused until it has less than ``renewalMargin`` left, so a busy worker signs about one token
/// every few minutes instead of one per request.
final class BearerTokenProvider: Sendable {
    static let backdate: TimeInterval = 60
    static let lifetime: TimeInterval = 300
    static let renewalMargin: TimeInterval = 120

    private let key: InAppPurchaseKey
    private let keyId: String
    private let issuerId: String
    private let bundleId: String
    private let cached = Mutex<(token: String, expires: Date)?>(nil)

    init(privateKeyPEM: String, keyId: String, issuerId: String, bundleId: String) throws(ConfigurationError) {
        self.key = try InAppPurchaseKey(pem: privateKeyPEM, role: "Server API signing key")
        self.keyId = keyId
        self.issuerId = issuerId
        self.bundleId = bundleId
    }

    func token(now: Date = Date()) throws -> String {
        if let cached = self.cached.withLock({ $0 }), cached.expires.timeIntervalSince(now) > Self.renewalMargin {
            return cached.token
        }
        let issuedAt = Int64(now.timeIntervalSince1970 - Self.backdate)
        let expires = issuedAt + Int64(Self.lifetime)
        let claims = Claims(
            iss: self.issuerId, iat: issuedAt, exp: expires, aud: "appstoreconnect-v1", bid: self.bundleId)
        let token = try self.key.compactJWS(keyId: self.keyId, claims: claims)
        self.cached.withLock { $0 = (token, Date(timeIntervalSince1970: TimeInterval(expires))) }
        return token
    }

    private struct Claims: Encodable {
        var iss: String
        var iat: Int64
        var exp: Int64
        var aud: String
        var bid: String
    }
}
