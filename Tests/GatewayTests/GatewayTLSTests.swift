import AsyncHTTPClient
import Crypto
import Foundation
import Gateway
import NIOSSL
import Settings
import SwiftASN1
import TestSupport
import Testing
import X509

/// With a certificate and key configured the listener speaks HTTPS (Apple only posts to HTTPS).
@Suite(.timeLimit(.minutes(2))) struct GatewayTLSTests {
    @Test func servesHTTPSWithTheConfiguredCertificate() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gateway-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pki = try TestPKI.make()
        let certificatePath = directory.appendingPathComponent("server.pem").path
        let keyPath = directory.appendingPathComponent("server-key.pem").path
        try pki.serverPEM.write(toFile: certificatePath, atomically: true, encoding: .utf8)
        try pki.serverKeyPEM.write(toFile: keyPath, atomically: true, encoding: .utf8)

        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(pki.rootPEM.utf8), format: .pem)])
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(tlsConfiguration: tls))
        let serveTLS: (inout GatewaySettings) throws -> Void = { settings in
            settings.tlsCertificatePath = certificatePath
            settings.tlsKeyPath = keyPath
        }
        do {
            try await GatewayHarness.withGateway(configure: serveTLS) { gateway in
                #expect(gateway.base.hasPrefix("https://"))
                let answer = try await GatewayHarness.post(
                    gateway.notificationsURL, signedPayload: try TestJWS.notification(uuid: "over-tls"), client: client)
                #expect(answer.status == 200)
                #expect(try await GatewayHarness.recordCount(gateway) == 1)
                // Plain HTTP on the TLS port gets no answer from the notification route.
                let plain = "http" + gateway.notificationsURL.dropFirst("https".count)
                await #expect(throws: (any Error).self) {
                    _ = try await GatewayHarness.post(plain, signedPayload: "a.b.c")
                }
            }
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    @Test func halfATLSConfigurationIsRefusedAtStartUp() throws {
        var settings = try GatewaySettings(environment: ["IAP_GATEWAY_TLS_CERTIFICATE": "/etc/tls/cert.pem"])
        #expect(throws: SettingsError.self) { try settings.validate() }
        settings.tlsKeyPath = "/etc/tls/key.pem"
        try settings.validate()
    }
}

/// A root CA and a server certificate for 127.0.0.1 / localhost issued by it.
struct TestPKI {
    let rootPEM: String
    let serverPEM: String
    let serverKeyPEM: String

    static func make(now: Date = Date()) throws -> TestPKI {
        let rootKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName { CommonName("gateway test root") }
        let root = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(rootKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400),
            issuer: rootName, subject: rootName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: Certificate.PublicKey(rootKey.publicKey))
            },
            issuerPrivateKey: Certificate.PrivateKey(rootKey)
        )
        let serverKey = P256.Signing.PrivateKey()
        let server = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(serverKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400),
            issuer: rootName, subject: try DistinguishedName { CommonName("localhost") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([
                    .dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                ])
            },
            issuerPrivateKey: Certificate.PrivateKey(rootKey)
        )
        return TestPKI(
            rootPEM: try root.serializeAsPEM().pemString,
            serverPEM: try server.serializeAsPEM().pemString,
            serverKeyPEM: serverKey.pemRepresentation
        )
    }
}
