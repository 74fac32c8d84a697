import Basics
import Crypto
public import Foundation
public import SwiftASN1
public import X509

/// The simulator's test PKI, shaped like Apple's App Store signing chain.
///
/// Apple signs JWS with a P-256 leaf carrying OID 1.2.840.113635.100.6.11.1, issued by the WWDR
/// intermediate carrying 1.2.840.113635.100.6.2.1, under Apple Root CA - G3. Workers that verify
/// the simulator's JWS run the same checks as for Apple's, only anchored in this root instead.
/// The root is written as PEM so workers (in other processes) can trust it.
public struct CertificateAuthority: Sendable {
    /// Extension on the intermediate marking it as Apple's WWDR CA.
    public static let intermediateMarkerOID: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 2, 1]
    /// Extension on the leaf marking it as an App Store receipt-signing certificate.
    public static let leafMarkerOID: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 11, 1]

    public let root: Certificate
    public let intermediate: Certificate
    public let leaf: Certificate
    let intermediateKey: P256.Signing.PrivateKey
    let leafKey: P256.Signing.PrivateKey

    /// The chain as the JWS `x5c` header carries it: leaf, intermediate, root, base64 DER.
    public let x5c: [String]

    init(
        root: Certificate, intermediate: Certificate, leaf: Certificate,
        intermediateKey: P256.Signing.PrivateKey, leafKey: P256.Signing.PrivateKey
    ) throws {
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
        self.intermediateKey = intermediateKey
        self.leafKey = leafKey
        self.x5c = try [leaf, intermediate, root].map { Data(try $0.derEncoded()).base64EncodedString() }
    }

    /// The root as PEM text, what `GET /sim/v1/root.pem` serves.
    public func rootPEM() throws -> String { try root.serializeAsPEM().pemString }

    /// The root as DER, the form verifiers take their trust anchors in.
    public func rootDER() throws -> Data { Data(try root.derEncoded()) }

    /// Generates a fresh chain valid from a little before `now`.
    ///
    /// - Parameter leafValidity: how long the signing leaf stays valid; make it short to test
    ///   that verifiers reject JWS whose leaf has expired.
    public static func generate(now: Date = Date(), leafValidity: Duration) throws -> CertificateAuthority {
        let rootKey = P256.Signing.PrivateKey()
        let root = try makeRoot(key: rootKey, now: now)
        let intermediateKey = P256.Signing.PrivateKey()
        let intermediate = try makeIntermediate(key: intermediateKey, root: root, rootKey: rootKey, now: now)
        let leafKey = P256.Signing.PrivateKey()
        let leaf = try makeLeaf(
            key: leafKey, intermediate: intermediate, intermediateKey: intermediateKey,
            now: now, validity: leafValidity
        )
        return try CertificateAuthority(
            root: root, intermediate: intermediate, leaf: leaf, intermediateKey: intermediateKey, leafKey: leafKey
        )
    }

    // MARK: Persistence

    private static let files = (
        root: "root.pem", intermediate: "intermediate.pem", intermediateKey: "intermediate-key.pem",
        leaf: "leaf.pem", leafKey: "leaf-key.pem"
    )

    /// Loads the chain from `directory`, or creates and saves one there.
    ///
    /// The root survives restarts so workers keep trusting it. A leaf that has expired (or that
    /// expires before `leafValidity` would) is re-issued from the stored intermediate. The root's
    /// private key is never written: nothing signs with it after the intermediate exists.
    public static func loadOrCreate(
        directory: String, now: Date = Date(), leafValidity: Duration
    ) throws -> CertificateAuthority {
        let url = URL(fileURLWithPath: directory, isDirectory: true)
        func path(_ name: String) -> URL { url.appendingPathComponent(name) }
        do {
            if !FileManager.default.fileExists(atPath: directory) {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            }
        } catch {
            throw SimulatorError(.certificateStore, "cannot create state directory \(directory): \(error)")
        }
        let existing = FileManager.default.fileExists(atPath: path(files.root).path)
        if !existing {
            let authority = try generate(now: now, leafValidity: leafValidity)
            try authority.save(to: url)
            return authority
        }
        do {
            let root = try Certificate(pemEncoded: String(contentsOf: path(files.root), encoding: .utf8))
            let intermediate = try Certificate(
                pemEncoded: String(contentsOf: path(files.intermediate), encoding: .utf8))
            let intermediateKey = try P256.Signing.PrivateKey(
                pemRepresentation: String(contentsOf: path(files.intermediateKey), encoding: .utf8)
            )
            var leaf = try Certificate(pemEncoded: String(contentsOf: path(files.leaf), encoding: .utf8))
            var leafKey = try P256.Signing.PrivateKey(
                pemRepresentation: String(contentsOf: path(files.leafKey), encoding: .utf8)
            )
            let reissue =
                leaf.notValidAfter <= now || leaf.notValidAfter > now.addingTimeInterval(leafValidity.seconds + 3600)
            if reissue {
                leafKey = P256.Signing.PrivateKey()
                leaf = try makeLeaf(
                    key: leafKey, intermediate: intermediate, intermediateKey: intermediateKey,
                    now: now, validity: leafValidity
                )
            }
            let authority = try CertificateAuthority(
                root: root, intermediate: intermediate, leaf: leaf, intermediateKey: intermediateKey, leafKey: leafKey
            )
            // Written back only when the leaf changed, so a read-only directory (a Kubernetes
            // Secret holding a generated CA, decision D27) loads as long as its leaf is valid.
            if reissue { try authority.save(to: url) }
            return authority
        } catch let error as SimulatorError {
            throw error
        } catch {
            throw SimulatorError(.certificateStore, "cannot load the CA from \(directory): \(error)")
        }
    }

    private func save(to directory: URL) throws {
        let contents: [(String, String)] = [
            (Self.files.root, try rootPEM()),
            (Self.files.intermediate, try intermediate.serializeAsPEM().pemString),
            (Self.files.intermediateKey, intermediateKey.pemRepresentation),
            (Self.files.leaf, try leaf.serializeAsPEM().pemString),
            (Self.files.leafKey, leafKey.pemRepresentation),
        ]
        do {
            for (name, text) in contents {
                try (text + "\n").write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
            }
        } catch {
            throw SimulatorError(.certificateStore, "cannot write the CA to \(directory.path): \(error)")
        }
    }

    /// Writes the root as PEM to `path` (creating parent directories) for workers to trust.
    public func writeRoot(to path: String) throws {
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true
            )
            try (rootPEM() + "\n").write(to: url, atomically: true, encoding: .utf8)
        } catch {
            throw SimulatorError(.certificateStore, "cannot write the root certificate to \(path): \(error)")
        }
    }

    // MARK: Certificates

    private static let organization = "iap-pipeline App Store Simulator"
    private static let tenYears: TimeInterval = 10 * 365 * 86_400

    private static func makeRoot(key: P256.Signing.PrivateKey, now: Date) throws -> Certificate {
        let name = try DistinguishedName {
            CountryName("US")
            OrganizationName(organization)
            CommonName("Simulator Root CA - G3")
        }
        return try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(tenYears),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: Certificate.PublicKey(key.publicKey))
            },
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
    }

    private static func makeIntermediate(
        key: P256.Signing.PrivateKey, root: Certificate, rootKey: P256.Signing.PrivateKey, now: Date
    ) throws -> Certificate {
        let name = try DistinguishedName {
            CountryName("US")
            OrganizationName(organization)
            OrganizationalUnitName("G6")
            CommonName("Simulator Worldwide Developer Relations Certification Authority")
        }
        return try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(tenYears - 86_400),
            issuer: root.subject,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: Certificate.PublicKey(key.publicKey))
                try AuthorityKeyIdentifier(keyIdentifier: subjectKeyIdentifier(of: root))
                Certificate.Extension(oid: intermediateMarkerOID, critical: false, value: asn1Null)
            },
            issuerPrivateKey: Certificate.PrivateKey(rootKey)
        )
    }

    private static func makeLeaf(
        key: P256.Signing.PrivateKey, intermediate: Certificate, intermediateKey: P256.Signing.PrivateKey,
        now: Date, validity: Duration
    ) throws -> Certificate {
        let name = try DistinguishedName {
            CountryName("US")
            OrganizationName(organization)
            OrganizationalUnitName("Apple Worldwide Developer Relations")
            CommonName("Simulator ECC Mac App Store and iTunes Store Receipt Signing")
        }
        return try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-60),
            notValidAfter: now.addingTimeInterval(validity.seconds),
            issuer: intermediate.subject,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try AuthorityKeyIdentifier(keyIdentifier: subjectKeyIdentifier(of: intermediate))
                Certificate.Extension(oid: leafMarkerOID, critical: false, value: asn1Null)
            },
            issuerPrivateKey: Certificate.PrivateKey(intermediateKey)
        )
    }

    /// Apple's marker extensions hold an ASN.1 NULL; only their presence matters.
    private static let asn1Null: ArraySlice<UInt8> = [0x05, 0x00]

    private static func subjectKeyIdentifier(of certificate: Certificate) throws -> ArraySlice<UInt8>? {
        try certificate.extensions.subjectKeyIdentifier?.keyIdentifier
    }
}

extension Certificate {
    /// The certificate's DER encoding (x5c entries, receipt blobs).
    func derEncoded() throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(self)
        return serializer.serializedBytes
    }
}
