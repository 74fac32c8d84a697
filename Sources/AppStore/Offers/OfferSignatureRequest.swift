public import Foundation

/// What to sign and its inputs, one case per kind: the CLI's flags and the read API's body both
/// become one of these, so both answer with the same ``OfferSignature`` for the same inputs.
public enum OfferSignatureRequest: Hashable, Sendable {
    /// StoreKit 1's `SKPaymentDiscount`; `applicationUsername` is the app's (empty when it sets none).
    case promotional(productId: String, offerId: String, applicationUsername: String)
    /// StoreKit 2's promotional offer JWS; `transactionId` optional, recommended by Apple.
    case promotionalJWS(productId: String, offerId: String, transactionId: String?)
    /// StoreKit 2's introductory-offer eligibility JWS.
    case introductoryEligibility(productId: String, allowIntroductoryOffer: Bool, transactionId: String)
    /// An Advanced Commerce in-app request JWS over the request's JSON, signed as given.
    case advancedCommerce(request: [UInt8])

    /// The kinds' names, as the CLI's argument and the API's `kind` spell them.
    public enum Kind: String, CaseIterable, Codable, Hashable, Sendable {
        case promotional
        case promotionalJWS = "promotional-jws"
        case introductoryEligibility = "introductory-eligibility"
        case advancedCommerce = "advanced-commerce"

        /// Whether the kind is a StoreKit 2 JWS, which names the key's issuer.
        public var needsIssuer: Bool { self != .promotional }
    }

    public var kind: Kind {
        switch self {
        case .promotional: .promotional
        case .promotionalJWS: .promotionalJWS
        case .introductoryEligibility: .introductoryEligibility
        case .advancedCommerce: .advancedCommerce
        }
    }
}

/// A signature as the app receives it. `nonce` and `timestamp` are StoreKit 1's alone (a JWS
/// carries its own inside).
public struct OfferSignature: Codable, Hashable, Sendable {
    public var kind: OfferSignatureRequest.Kind
    public var keyIdentifier: String
    /// StoreKit 1: base64 of the DER ECDSA signature; StoreKit 2: the compact JWS.
    public var signature: String
    /// StoreKit 1: the lowercased UUID the app passes back to StoreKit.
    public var nonce: String?
    /// StoreKit 1: UNIX milliseconds; Apple accepts the signature for 24 hours from it.
    public var timestamp: Int64?
}

extension OfferSigner {
    /// Signs `request` with a fresh nonce at `now`.
    public func sign(_ request: OfferSignatureRequest, now: Date = Date()) throws -> OfferSignature {
        switch request {
        case .promotional(let productId, let offerId, let applicationUsername):
            let made = try promotionalOffer(
                productId: productId, offerId: offerId, applicationUsername: applicationUsername,
                timestamp: Int64(now.timeIntervalSince1970 * 1000))
            return OfferSignature(
                kind: .promotional, keyIdentifier: made.keyIdentifier, signature: made.signature, nonce: made.nonce,
                timestamp: made.timestamp)
        case .promotionalJWS(let productId, let offerId, let transactionId):
            return jwsSignature(
                .promotionalJWS,
                try promotionalOfferJWS(productId: productId, offerId: offerId, transactionId: transactionId, now: now))
        case .introductoryEligibility(let productId, let allowIntroductoryOffer, let transactionId):
            return jwsSignature(
                .introductoryEligibility,
                try introductoryOfferEligibilityJWS(
                    productId: productId, allowIntroductoryOffer: allowIntroductoryOffer, transactionId: transactionId,
                    now: now))
        case .advancedCommerce(let body):
            return jwsSignature(.advancedCommerce, try advancedCommerceInAppJWS(request: body, now: now))
        }
    }

    private func jwsSignature(_ kind: OfferSignatureRequest.Kind, _ jws: String) -> OfferSignature {
        OfferSignature(kind: kind, keyIdentifier: keyId, signature: jws)
    }
}
