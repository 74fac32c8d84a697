public import Foundation

/// Signs what StoreKit asks an app's server to sign, with the app's In-App Purchase key (a `.p8`
/// from App Store Connect), as Apple's server libraries do (`PromotionalOfferSignatureCreator`,
/// `PromotionalOfferV2SignatureCreator`, `IntroductoryOfferEligibilitySignatureCreator`,
/// `AdvancedCommerceAPIInAppSignatureCreator`):
///
/// - StoreKit 1's promotional offer (`SKPaymentDiscount`): ECDSA P-256 with SHA-256 over
///   `bundleId ⁣ keyId ⁣ productId ⁣ offerId ⁣ applicationUsername ⁣ nonce ⁣ timestamp`, joined by
///   U+2063, the username and nonce lowercased; DER, base64.
/// - StoreKit 2's compact JWS (ES256, header `alg`, `kid`, `typ: JWT`; claims `bid`, `iss`,
///   `aud`, `iat` in seconds and a fresh `nonce`, with the feature's own claims) for a promotional
///   offer (`aud: promotional-offer`), introductory-offer eligibility
///   (`introductory-offer-eligibility`) and an Advanced Commerce in-app request
///   (`advanced-commerce-api`, the request's JSON base64-encoded in `request`).
///
/// The key never leaves this type: nothing here logs or describes it.
public struct OfferSigner: Sendable {
    /// A StoreKit 1 promotional offer signature and what the app passes with it.
    public struct PromotionalOfferSignature: Codable, Hashable, Sendable {
        public var keyIdentifier: String
        /// Lowercased UUID, as StoreKit sends it back to Apple.
        public var nonce: String
        /// UNIX milliseconds; Apple accepts the signature for 24 hours from it.
        public var timestamp: Int64
        /// Base64 of the DER ECDSA signature.
        public var signature: String
    }

    private let key: InAppPurchaseKey
    public let keyId: String
    /// The issuer id of the key's team (App Store Connect, Keys); the JWS kinds need it.
    public let issuerId: String?
    public let bundleId: String

    /// - Parameter privateKeyPEM: the `.p8` file's text (PKCS#8 P-256).
    public init(privateKeyPEM: String, keyId: String, issuerId: String?, bundleId: String)
        throws(ConfigurationError)
    {
        self.key = try InAppPurchaseKey(pem: privateKeyPEM, role: "offer key")
        self.keyId = keyId
        self.issuerId = issuerId
        self.bundleId = bundleId
    }

    /// The separator Apple's StoreKit 1 payload uses, INVISIBLE SEPARATOR.
    static let separator = "\u{2063}"

    /// The StoreKit 1 promotional offer signature. `applicationUsername` is the app's
    /// `applicationUsername` (empty when it sets none); a fresh nonce and the current time unless
    /// given.
    public func promotionalOffer(
        productId: String, offerId: String, applicationUsername: String = "", nonce: UUID = UUID(),
        timestamp: Int64 = Int64(Date().timeIntervalSince1970 * 1000)
    ) throws -> PromotionalOfferSignature {
        let nonceText = nonce.uuidString.lowercased()
        let payload = [
            bundleId, keyId, productId, offerId, applicationUsername.lowercased(), nonceText, String(timestamp),
        ].joined(separator: Self.separator)
        return PromotionalOfferSignature(
            keyIdentifier: keyId, nonce: nonceText, timestamp: timestamp,
            signature: try key.derSignature(for: Data(payload.utf8)).base64EncodedString())
    }

    /// The StoreKit 2 promotional offer JWS. `transactionId`: any of the customer's transactions
    /// (or their `appTransactionId`); optional, recommended by Apple.
    public func promotionalOfferJWS(
        productId: String, offerId: String, transactionId: String?, now: Date = Date(), nonce: UUID = UUID()
    ) throws -> String {
        var claims: [String: JWSClaim] = ["productId": .string(productId), "offerIdentifier": .string(offerId)]
        if let transactionId { claims["transactionId"] = .string(transactionId) }
        return try jws(audience: "promotional-offer", claims: claims, now: now, nonce: nonce)
    }

    /// The StoreKit 2 introductory-offer eligibility JWS.
    public func introductoryOfferEligibilityJWS(
        productId: String, allowIntroductoryOffer: Bool, transactionId: String, now: Date = Date(),
        nonce: UUID = UUID()
    ) throws -> String {
        try jws(
            audience: "introductory-offer-eligibility",
            claims: [
                "productId": .string(productId), "allowIntroductoryOffer": .bool(allowIntroductoryOffer),
                "transactionId": .string(transactionId),
            ], now: now, nonce: nonce)
    }

    /// The Advanced Commerce in-app request JWS; `request` is the request's JSON, signed as given.
    public func advancedCommerceInAppJWS(request: [UInt8], now: Date = Date(), nonce: UUID = UUID()) throws
        -> String
    {
        try jws(
            audience: "advanced-commerce-api", claims: ["request": .string(Data(request).base64EncodedString())],
            now: now, nonce: nonce)
    }

    private func jws(audience: String, claims: [String: JWSClaim], now: Date, nonce: UUID) throws -> String {
        guard let issuerId else {
            throw ConfigurationError(.missingIssuerId, "signing a StoreKit 2 JWS needs the key's issuer id")
        }
        var all = claims
        all["bid"] = .string(bundleId)
        all["iss"] = .string(issuerId)
        all["aud"] = .string(audience)
        all["iat"] = .integer(Int64(now.timeIntervalSince1970))
        all["nonce"] = .string(nonce.uuidString.lowercased())
        return try key.compactJWS(keyId: keyId, claims: all)
    }
}

/// A claim value of the JWS kinds: strings, integers and booleans only.
enum JWSClaim: Encodable, Hashable, Sendable {
    case string(String)
    case integer(Int64)
    case bool(Bool)

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        }
    }
}
