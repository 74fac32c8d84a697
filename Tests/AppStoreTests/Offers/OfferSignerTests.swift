import AppStore
import Crypto
import Foundation
import Processes
import TestSupport
import Testing

/// The four signatures StoreKit asks a server for, against Apple's own Python library
/// (``ApplesOfferCheck``), and the request form the CLI and the read API sign through.
@Suite(.timeLimit(.minutes(1))) struct OfferSignerTests {
    typealias Check = ApplesOfferCheck

    static func signer(_ key: P256.Signing.PrivateKey, issuerId: String? = Check.issuerId) throws -> OfferSigner {
        try OfferSigner(
            privateKeyPEM: key.pemRepresentation, keyId: Check.keyId, issuerId: issuerId, bundleId: Check.bundleId)
    }

    @Test func theFourKindsMatchApplesLibrary() async throws {
        let key = P256.Signing.PrivateKey()
        let signer = try Self.signer(key)
        let promotional = try signer.promotionalOffer(
            productId: Check.productId, offerId: Check.offerId, applicationUsername: Check.applicationUsername,
            nonce: UUID(uuidString: "0F9E4A43-2B51-4D25-8C6B-5C1B2A07D3E1")!, timestamp: 1_780_000_000_000)
        #expect(promotional.nonce == "0f9e4a43-2b51-4d25-8c6b-5c1b2a07d3e1")
        let signatures = Check.Signatures(
            promotional: (promotional.nonce, promotional.timestamp, promotional.signature),
            promotionalJWS: try signer.promotionalOfferJWS(
                productId: Check.productId, offerId: Check.offerId, transactionId: Check.transactionId),
            promotionalJWSWithoutTransaction: try signer.promotionalOfferJWS(
                productId: Check.productId, offerId: Check.offerId, transactionId: nil),
            introductoryEligibility: try signer.introductoryOfferEligibilityJWS(
                productId: Check.productId, allowIntroductoryOffer: false, transactionId: Check.transactionId),
            advancedCommerce: try signer.advancedCommerceInAppJWS(request: Array(Check.request.utf8)))
        let run = try await Check.run(signatures, keyPEM: key.pemRepresentation)
        #expect(run.exitCode == 0, "\(run.output)")
        #expect(run.output.contains(Check.agreement), "\(run.output)")
    }

    /// A request signs as its kind's function does: the StoreKit 1 fields come back beside the
    /// signature, a JWS carries its own.
    @Test func aRequestSignsAsItsKind() throws {
        let key = P256.Signing.PrivateKey()
        let signer = try Self.signer(key)
        let now = Date(timeIntervalSince1970: 1_780_000_000.25)
        let promotional = try signer.sign(
            .promotional(productId: "p", offerId: "o", applicationUsername: "U"), now: now)
        #expect(promotional.kind == .promotional && promotional.keyIdentifier == Check.keyId)
        #expect(promotional.timestamp == 1_780_000_000_250 && promotional.nonce?.count == 36)
        let jws = try signer.sign(
            .introductoryEligibility(productId: "p", allowIntroductoryOffer: true, transactionId: "1"))
        #expect(jws.kind == .introductoryEligibility && jws.nonce == nil && jws.timestamp == nil)
        #expect(jws.signature.split(separator: ".").count == 3)
    }

    @Test func aStoreKit2SignatureNeedsTheIssuer() throws {
        let signer = try Self.signer(P256.Signing.PrivateKey(), issuerId: nil)
        #expect(throws: ConfigurationError.self) {
            try signer.promotionalOfferJWS(productId: "p", offerId: "o", transactionId: nil)
        }
        #expect(throws: ConfigurationError.self) {
            try OfferSigner(privateKeyPEM: "not a key", keyId: Check.keyId, issuerId: nil, bundleId: Check.bundleId)
        }
        _ = try signer.promotionalOffer(productId: "p", offerId: "o")
    }
}
