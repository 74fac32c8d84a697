import Crypto
import Foundation
import SwiftASN1
import X509

/// A throwaway App Store-like PKI (root → intermediate with the WWDR OID → leaf with the
/// receipt-signing OID, all P-256) and a JWS signer, as in Tests/AppStoreTests.
struct TestSigningChain: Sendable {
    static let wwdrOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    static let receiptSignerOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]

    let leafKey = P256.Signing.PrivateKey()
    let root: Certificate
    let intermediate: Certificate
    let leaf: Certificate

    init(name: String = "Test") throws {
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName { CommonName("\(name) Root CA") }
        let intermediateName = try DistinguishedName { CommonName("\(name) WWDR Intermediate") }
        let leafName = try DistinguishedName { CommonName("\(name) Receipt Signing") }
        let start = Date(timeIntervalSince1970: 1_500_000_000)
        let end = Date(timeIntervalSince1970: 2_300_000_000)

        self.root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey),
            notValidBefore: start, notValidAfter: end, issuer: rootName, subject: rootName,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(rootKey)
        )
        self.intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey),
            notValidBefore: start, notValidAfter: end, issuer: rootName, subject: intermediateName,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true))
                Certificate.Extension(oid: Self.wwdrOID, critical: false, value: [0x05, 0x00])
            },
            issuerPrivateKey: .init(rootKey)
        )
        self.leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(self.leafKey.publicKey),
            notValidBefore: start, notValidAfter: end, issuer: intermediateName, subject: leafName,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                Certificate.Extension(oid: Self.receiptSignerOID, critical: false, value: [0x05, 0x00])
            },
            issuerPrivateKey: .init(intermediateKey)
        )
    }

    static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    var rootDER: Data { get throws { Data(try Self.der(self.root)) } }

    /// A compact JWS of `payload` with `x5c` = [leaf, intermediate, root].
    func sign(_ payload: [String: any Sendable]) throws -> String {
        let chain = try [self.leaf, self.intermediate, self.root].map { Data(try Self.der($0)).base64EncodedString() }
        let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "x5c": chain])
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
}
