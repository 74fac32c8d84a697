import Foundation
public import Processes

/// The inputs every offer-signature test signs, and the check that Apple's own creators
/// (`app-store-server-library` from PyPI) agree with what was signed here: the StoreKit 1
/// signature verifies over the payload Apple's `PromotionalOfferSignatureCreator` builds for the
/// same inputs (captured from its signing call, so the message format is Apple's, not a copy of
/// it), and each StoreKit 2 JWS has the header and claims Apple's creators produce with the same
/// key (all but `iat` and the fresh `nonce`), its signature verifying under the key. The same
/// check runs on `OfferSigner`'s signatures, the read API's and `iap offers sign`'s.
public enum ApplesOfferCheck {
    public static let keyId = "KEY1234567"
    public static let issuerId = "57246542-96fe-1a63-e053-0824d011072a"
    public static let bundleId = "com.example.game"
    public static let productId = "vip_monthly"
    public static let offerId = "WINBACK_50"
    public static let applicationUsername = "User-42"
    public static let transactionId = "2000000000000001"
    /// An Advanced Commerce one-time charge, as Apple's model unstructures it.
    public static let request =
        #"{"requestInfo": {"requestReferenceId": "2f0f4e8c-3c2b-4b49-9a4f-2a1c5d1e7b10"}, "currency": "USD", "item": {"SKU": "gems_100", "description": "100 gems", "displayName": "Gems", "price": 990}, "taxCode": "C003-00-2", "operation": "CREATE_ONE_TIME_CHARGE", "version": "1"}"#

    /// What was signed here for the inputs above.
    public struct Signatures: Sendable {
        /// StoreKit 1: the nonce and timestamp it was made with, and the signature.
        public var promotional: (nonce: String, timestamp: Int64, signature: String)
        public var promotionalJWS: String
        public var promotionalJWSWithoutTransaction: String
        public var introductoryEligibility: String
        public var advancedCommerce: String

        public init(
            promotional: (nonce: String, timestamp: Int64, signature: String), promotionalJWS: String,
            promotionalJWSWithoutTransaction: String, introductoryEligibility: String, advancedCommerce: String
        ) {
            self.promotional = promotional
            self.promotionalJWS = promotionalJWS
            self.promotionalJWSWithoutTransaction = promotionalJWSWithoutTransaction
            self.introductoryEligibility = introductoryEligibility
            self.advancedCommerce = advancedCommerce
        }
    }

    /// What Apple's library prints when all five agree (the run exits 0 then, 1 otherwise).
    public static let agreement = "5 signatures agree with Apple's library"

    /// Runs the check over `signatures`, made with the P-256 key `keyPEM`.
    public static func run(_ signatures: Signatures, keyPEM: String) async throws -> ChildProcess.Completion {
        let ours: [String: Any] = [
            "keyId": keyId, "issuerId": issuerId, "bundleId": bundleId,
            "promotional": [
                "productId": productId, "offerId": offerId, "applicationUsername": applicationUsername,
                "nonce": signatures.promotional.nonce, "timestamp": signatures.promotional.timestamp,
                "signature": signatures.promotional.signature,
            ],
            "promotionalJWS": signatures.promotionalJWS,
            "promotionalJWSWithoutTransaction": signatures.promotionalJWSWithoutTransaction,
            "introductoryEligibility": signatures.introductoryEligibility,
            "advancedCommerce": signatures.advancedCommerce,
        ]
        return try await ApplesPythonLibrary.check(
            script,
            files: ["key.p8": Data(keyPEM.utf8), "ours.json": try JSONSerialization.data(withJSONObject: ours)])
    }

    /// Reads `ours.json`, makes Apple's signatures for the same inputs with the same key, and
    /// compares; prints the count that agree, exits 1 on any difference.
    static let script = """
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
