import AppStore
import Crypto
import Foundation
import Processes
import Testing

/// The four signatures StoreKit asks a server for, against Apple's own Python library
/// (`app-store-server-library` from PyPI, `Tests/python-requirements.txt`): the StoreKit 1
/// signature verifies over the payload Apple's `PromotionalOfferSignatureCreator` builds for the
/// same inputs (captured from its signing call, so the message format is Apple's, not a copy of
/// it), and each StoreKit 2 JWS has the header and claims Apple's creators produce with the same
/// key (all but `iat` and the fresh `nonce`), its signature verifying under the key.
@Suite(.timeLimit(.minutes(1))) struct OfferSignerTests {
    static let keyId = "KEY1234567"
    static let issuerId = "57246542-96fe-1a63-e053-0824d011072a"
    static let bundleId = "com.example.game"
    /// An Advanced Commerce one-time charge, as Apple's model unstructures it.
    static let request =
        #"{"requestInfo": {"requestReferenceId": "2f0f4e8c-3c2b-4b49-9a4f-2a1c5d1e7b10"}, "currency": "USD", "item": {"SKU": "gems_100", "description": "100 gems", "displayName": "Gems", "price": 990}, "taxCode": "C003-00-2", "operation": "CREATE_ONE_TIME_CHARGE", "version": "1"}"#

    @Test func theFourKindsMatchApplesLibrary() async throws {
        let key = P256.Signing.PrivateKey()
        let signer = try OfferSigner(
            privateKeyPEM: key.pemRepresentation, keyId: Self.keyId, issuerId: Self.issuerId, bundleId: Self.bundleId)
        let promotional = try signer.promotionalOffer(
            productId: "vip_monthly", offerId: "WINBACK_50", applicationUsername: "User-42",
            nonce: UUID(uuidString: "0F9E4A43-2B51-4D25-8C6B-5C1B2A07D3E1")!, timestamp: 1_780_000_000_000)
        #expect(promotional.nonce == "0f9e4a43-2b51-4d25-8c6b-5c1b2a07d3e1")
        let ours: [String: Any] = [
            "keyId": Self.keyId, "issuerId": Self.issuerId, "bundleId": Self.bundleId,
            "promotional": [
                "productId": "vip_monthly", "offerId": "WINBACK_50", "applicationUsername": "User-42",
                "nonce": promotional.nonce, "timestamp": promotional.timestamp, "signature": promotional.signature,
            ],
            "promotionalJWS": try signer.promotionalOfferJWS(
                productId: "vip_monthly", offerId: "WINBACK_50", transactionId: "2000000000000001"),
            "promotionalJWSWithoutTransaction": try signer.promotionalOfferJWS(
                productId: "vip_monthly", offerId: "WINBACK_50", transactionId: nil),
            "introductoryEligibility": try signer.introductoryOfferEligibilityJWS(
                productId: "vip_monthly", allowIntroductoryOffer: false, transactionId: "2000000000000001"),
            "advancedCommerce": try signer.advancedCommerceInAppJWS(request: Array(Self.request.utf8)),
        ]
        let run = try await ApplesPythonLibrary.check(
            Self.check,
            files: [
                "key.p8": Data(key.pemRepresentation.utf8),
                "ours.json": try JSONSerialization.data(withJSONObject: ours),
            ])
        #expect(run.exitCode == 0, "\(run.output)")
        #expect(run.output.contains("5 signatures agree with Apple's library"), "\(run.output)")
    }

    @Test func aStoreKit2SignatureNeedsTheIssuer() throws {
        let signer = try OfferSigner(
            privateKeyPEM: P256.Signing.PrivateKey().pemRepresentation, keyId: Self.keyId, issuerId: nil,
            bundleId: Self.bundleId)
        #expect(throws: ConfigurationError.self) {
            try signer.promotionalOfferJWS(productId: "p", offerId: "o", transactionId: nil)
        }
        #expect(throws: ConfigurationError.self) {
            try OfferSigner(privateKeyPEM: "not a key", keyId: Self.keyId, issuerId: nil, bundleId: Self.bundleId)
        }
        _ = try signer.promotionalOffer(productId: "p", offerId: "o")
    }

    /// Reads `ours.json`, makes Apple's signatures for the same inputs with the same key, and
    /// compares; prints the count that agree, exits 1 on any difference.
    static let check = """
        import base64, json, sys, uuid
        import jwt
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ec import ECDSA
        from cryptography.hazmat.primitives.hashes import SHA256
        from appstoreserverlibrary.promotional_offer import PromotionalOfferSignatureCreator
        from appstoreserverlibrary.jws_signature_creator import (
            PromotionalOfferV2SignatureCreator, IntroductoryOfferEligibilitySignatureCreator,
            AdvancedCommerceAPIInAppSignatureCreator)
        from appstoreserverlibrary.models.AdvancedCommerceOneTimeChargeCreateRequest import (
            AdvancedCommerceOneTimeChargeCreateRequest)
        from appstoreserverlibrary.models.AdvancedCommerceOneTimeChargeItem import AdvancedCommerceOneTimeChargeItem
        from appstoreserverlibrary.models.AdvancedCommerceRequestInfo import AdvancedCommerceRequestInfo

        directory = sys.argv[1]
        key = open(directory + "/key.p8", "rb").read()
        ours = json.load(open(directory + "/ours.json"))
        kid, iss, bid = ours["keyId"], ours["issuerId"], ours["bundleId"]
        public = serialization.load_pem_private_key(key, password=None).public_key()
        failures, agreed = [], 0

        class Capture:
            def __init__(self, inner):
                self.inner, self.payload = inner, None
            def sign(self, data, algorithm):
                self.payload = data
                return self.inner.sign(data, algorithm)

        p = ours["promotional"]
        creator = PromotionalOfferSignatureCreator(key, kid, bid)
        capture = Capture(creator._signing_key)
        creator._signing_key = capture
        creator.create_signature(p["productId"], p["offerId"], p["applicationUsername"], uuid.UUID(p["nonce"]), p["timestamp"])
        try:
            public.verify(base64.b64decode(p["signature"]), capture.payload, ECDSA(SHA256()))
            agreed += 1
        except Exception as error:
            failures.append("promotional: does not verify over Apple's payload %r: %r" % (capture.payload, error))

        def compare(name, our_jws, apple_jws, audience):
            global agreed
            try:
                if jwt.get_unverified_header(our_jws) != jwt.get_unverified_header(apple_jws):
                    raise ValueError("headers %s != %s" % (jwt.get_unverified_header(our_jws), jwt.get_unverified_header(apple_jws)))
                mine = jwt.decode(our_jws, public, algorithms=["ES256"], audience=audience)
                apple = jwt.decode(apple_jws, public, algorithms=["ES256"], audience=audience)
                if abs(mine["iat"] - apple["iat"]) > 120:
                    raise ValueError("iat %s against %s" % (mine["iat"], apple["iat"]))
                uuid.UUID(mine["nonce"])
                if "request" in mine:
                    for claims in (mine, apple):
                        claims["request"] = json.loads(base64.b64decode(claims["request"]))
                strip = lambda claims: {k: v for k, v in claims.items() if k not in ("iat", "nonce")}
                if strip(mine) != strip(apple):
                    raise ValueError("claims %s != %s" % (strip(mine), strip(apple)))
                agreed += 1
            except Exception as error:
                failures.append("%s: %s" % (name, error))

        promotional = PromotionalOfferV2SignatureCreator(key, kid, iss, bid)
        compare("promotional-jws", ours["promotionalJWS"],
                promotional.create_signature("vip_monthly", "WINBACK_50", "2000000000000001"), "promotional-offer")
        compare("promotional-jws without a transaction", ours["promotionalJWSWithoutTransaction"],
                promotional.create_signature("vip_monthly", "WINBACK_50", None), "promotional-offer")
        compare("introductory-eligibility", ours["introductoryEligibility"],
                IntroductoryOfferEligibilitySignatureCreator(key, kid, iss, bid).create_signature(
                    "vip_monthly", False, "2000000000000001"), "introductory-offer-eligibility")
        request = AdvancedCommerceOneTimeChargeCreateRequest(
            requestInfo=AdvancedCommerceRequestInfo(requestReferenceId=uuid.UUID("2f0f4e8c-3c2b-4b49-9a4f-2a1c5d1e7b10")),
            currency="USD", taxCode="C003-00-2",
            item=AdvancedCommerceOneTimeChargeItem(SKU="gems_100", description="100 gems", displayName="Gems", price=990))
        compare("advanced-commerce", ours["advancedCommerce"],
                AdvancedCommerceAPIInAppSignatureCreator(key, kid, iss, bid).create_signature(request),
                "advanced-commerce-api")

        for failure in failures:
            print("FAILED", failure)
        print("%d signatures agree with Apple's library" % agreed)
        sys.exit(1 if failures else 0)
        """
}
