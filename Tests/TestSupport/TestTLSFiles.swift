import Crypto
import Foundation
import SwiftASN1
import X509

/// A throw-away PKI on disk for TLS tests, made at test time: a CA, a server certificate for
/// `localhost` and `127.0.0.1`, a client certificate, and a second CA that signed nothing of
/// these (for "wrong CA" tests). All P-256, PEM files in a fresh temporary directory.
public struct TestTLSFiles: Sendable {
    public let directory: String
    public let caFile: String
    public let serverCertificateFile: String
    public let serverKeyFile: String
    public let clientCertificateFile: String
    public let clientKeyFile: String
    /// A CA that did not sign the server's certificate.
    public let otherCAFile: String

    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("iap-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        caFile = directory + "/ca.pem"
        serverCertificateFile = directory + "/server.pem"
        serverKeyFile = directory + "/server-key.pem"
        clientCertificateFile = directory + "/client.pem"
        clientKeyFile = directory + "/client-key.pem"
        otherCAFile = directory + "/other-ca.pem"

        let (caKey, ca) = try Self.authority("iap test Redis CA")
        let (_, otherCA) = try Self.authority("iap test other CA")
        let serverKey = P256.Signing.PrivateKey()
        let server = try Self.leaf(
            "localhost", key: serverKey, issuer: ca, issuerKey: caKey, usage: .serverAuth,
            names: [.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
        let clientKey = P256.Signing.PrivateKey()
        let client = try Self.leaf(
            "iap test client", key: clientKey, issuer: ca, issuerKey: caKey, usage: .clientAuth, names: [])

        try Self.write(ca.serializeAsPEM().pemString, to: caFile)
        try Self.write(otherCA.serializeAsPEM().pemString, to: otherCAFile)
        try Self.write(server.serializeAsPEM().pemString, to: serverCertificateFile)
        try Self.write(serverKey.pemRepresentation, to: serverKeyFile)
        try Self.write(client.serializeAsPEM().pemString, to: clientCertificateFile)
        try Self.write(clientKey.pemRepresentation, to: clientKeyFile)
    }

    /// Deletes the files.
    public func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static let validity = (
        Date(timeIntervalSinceNow: -3600), Date(timeIntervalSinceNow: 7 * 24 * 3600)
    )

    private static func authority(_ name: String) throws -> (P256.Signing.PrivateKey, Certificate) {
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName(name) }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: validity.0, notValidAfter: validity.1, issuer: subject, subject: subject,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(key)
        )
        return (key, certificate)
    }

    private static func leaf(
        _ name: String, key: P256.Signing.PrivateKey, issuer: Certificate, issuerKey: P256.Signing.PrivateKey,
        usage: ExtendedKeyUsage.Usage, names: [GeneralName]
    ) throws -> Certificate {
        try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: validity.0, notValidAfter: validity.1, issuer: issuer.subject,
            subject: try DistinguishedName { CommonName(name) },
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([usage])
                if !names.isEmpty { SubjectAlternativeNames(names) }
            },
            issuerPrivateKey: .init(issuerKey)
        )
    }

    private static func write(_ text: String, to path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
