import Crypto
import Foundation
import SwiftASN1
import X509

/// A throwaway App Store-like PKI for tests: root → intermediate (WWDR OID) → leaf (receipt
/// signing OID), all P-256, plus a JWS signer. Knobs produce the broken variants tests need.
struct TestSigningChain {
    struct Options {
        var leafHasReceiptOID = true
        var intermediateHasWWDROID = true
        var leafValidity: ClosedRange<Date> = Date(timeIntervalSince1970: 1_600_000_000)...Date(timeIntervalSince1970: 2_200_000_000)
        /// When set, the leaf names this OCSP responder (so online checks query it).
        var leafOCSPURI: String?
        /// When set, the intermediate names this OCSP responder (answered for the root).
        var intermediateOCSPURI: String?
    }

    static let wwdrOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    static let receiptSignerOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]

    let rootKey = P256.Signing.PrivateKey()
    let intermediateKey = P256.Signing.PrivateKey()
    let leafKey = P256.Signing.PrivateKey()
    let root: Certificate
    let intermediate: Certificate
    let leaf: Certificate

    init(_ options: Options = Options(), name: String = "Test") throws {
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
                    AuthorityInformationAccess([.init(method: .ocspServer, location: .uniformResourceIdentifier(intermediateOCSP))])
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
                if receiptOID { Certificate.Extension(oid: Self.receiptSignerOID, critical: false, value: [0x05, 0x00]) }
                if let ocsp {
                    AuthorityInformationAccess([.init(method: .ocspServer, location: .uniformResourceIdentifier(ocsp))])
                }
            },
            issuerPrivateKey: .init(self.intermediateKey)
        )
    }

    static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    var rootDER: Data { get throws { Data(try Self.der(self.root)) } }

    /// A compact JWS of `payload` with `x5c` = [leaf, intermediate, root] unless overridden.
    func sign(_ payload: [String: Any], x5c: [Certificate]? = nil, alg: String = "ES256") throws -> String {
        let chain = try (x5c ?? [self.leaf, self.intermediate, self.root]).map { Data(try Self.der($0)).base64EncodedString() }
        let header = try JSONSerialization.data(withJSONObject: ["alg": alg, "x5c": chain])
        let body = try JSONSerialization.data(withJSONObject: payload)
        let signingInput = "\(Self.base64URL(header)).\(Self.base64URL(body))"
        let signature = try self.leafKey.signature(for: Data(signingInput.utf8))
        return "\(signingInput).\(Self.base64URL(signature.rawRepresentation))"
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func base64URLDecode(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
