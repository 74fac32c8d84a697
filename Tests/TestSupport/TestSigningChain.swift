public import Crypto
public import Foundation
public import SwiftASN1
public import X509

/// The tests' App Store-like PKI: root → intermediate (WWDR OID) → leaf (receipt-signing OID),
/// all P-256, plus a JWS signer. ``Options`` produce the broken variants tests need (a missing
/// OID, a leaf outside its validity, OCSP responders to revoke through).
///
/// The simulator's `CertificateAuthority` is the simulator's own signing chain (relative to
/// now, persisted, served as PEM); this one has fixed dates so tests can pin a validation time.
public struct TestSigningChain: Sendable {
    public struct Options: Sendable {
        public var leafHasReceiptOID = true
        public var intermediateHasWWDROID = true
        public var leafValidity: ClosedRange<Date> =
            Date(timeIntervalSince1970: 1_600_000_000)...Date(timeIntervalSince1970: 2_200_000_000)
        /// When set, the leaf names this OCSP responder (so online checks query it).
        public var leafOCSPURI: String?
        /// When set, the intermediate names this OCSP responder (answered for the root).
        public var intermediateOCSPURI: String?

        public init() {}
    }

    public static let wwdrOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    public static let receiptSignerOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]

    public let rootKey = P256.Signing.PrivateKey()
    public let intermediateKey = P256.Signing.PrivateKey()
    public let leafKey = P256.Signing.PrivateKey()
    public let root: Certificate
    public let intermediate: Certificate
    public let leaf: Certificate

    public init(_ options: Options = Options(), name: String = "Test") throws {
        let rootName = try DistinguishedName { CommonName("\(name) Root CA") }
        let intermediateName = try DistinguishedName { CommonName("\(name) WWDR Intermediate") }
        let leafName = try DistinguishedName { CommonName("\(name) Receipt Signing") }
        let start = Date(timeIntervalSince1970: 1_500_000_000)
        let end = Date(timeIntervalSince1970: 2_300_000_000)

        self.root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(self.rootKey.publicKey),
            notValidBefore: start, notValidAfter: end, issuer: rootName, subject: rootName,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(self.rootKey)
        )
        let wwdr = options.intermediateHasWWDROID
        let intermediateOCSP = options.intermediateOCSPURI
        self.intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(self.intermediateKey.publicKey),
            notValidBefore: start, notValidAfter: end, issuer: rootName, subject: intermediateName,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true))
                if wwdr { Certificate.Extension(oid: Self.wwdrOID, critical: false, value: [0x05, 0x00]) }
                if let intermediateOCSP {
                    AuthorityInformationAccess([
                        .init(method: .ocspServer, location: .uniformResourceIdentifier(intermediateOCSP))
                    ])
                }
            },
            issuerPrivateKey: .init(self.rootKey)
        )
        let receiptOID = options.leafHasReceiptOID
        let ocsp = options.leafOCSPURI
        self.leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(self.leafKey.publicKey),
            notValidBefore: options.leafValidity.lowerBound, notValidAfter: options.leafValidity.upperBound,
            issuer: intermediateName, subject: leafName,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                if receiptOID {
                    Certificate.Extension(oid: Self.receiptSignerOID, critical: false, value: [0x05, 0x00])
                }
                if let ocsp {
                    AuthorityInformationAccess([.init(method: .ocspServer, location: .uniformResourceIdentifier(ocsp))])
                }
            },
            issuerPrivateKey: .init(self.intermediateKey)
        )
    }

    public static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    public var rootDER: Data { get throws { Data(try Self.der(self.root)) } }

    /// A compact JWS of `payload` with `x5c` = [leaf, intermediate, root] unless overridden.
    public func sign(_ payload: [String: Any], x5c: [Certificate]? = nil, alg: String = "ES256") throws -> String {
        let chain = try (x5c ?? [self.leaf, self.intermediate, self.root]).map {
            Data(try Self.der($0)).base64EncodedString()
        }
        let header = try JSONSerialization.data(withJSONObject: ["alg": alg, "x5c": chain])
        let body = try JSONSerialization.data(withJSONObject: payload)
        let signingInput = "\(Self.base64URL(header)).\(Self.base64URL(body))"
        let signature = try self.leafKey.signature(for: Data(signingInput.utf8))
        return "\(signingInput).\(Self.base64URL(signature.rawRepresentation))"
    }

    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func base64URLDecode(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
