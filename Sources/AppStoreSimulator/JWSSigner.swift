import Crypto
import Foundation

/// Signs payloads into compact JWS exactly as the App Store does.
///
/// Header `{"alg":"ES256","x5c":[leaf, intermediate, root]}` (base64 DER, standard alphabet as
/// Apple writes it), base64url header and payload without padding, and a 64-byte raw R||S
/// ECDSA P-256/SHA-256 signature over `header.payload`.
public struct JWSSigner: Sendable {
    private let authority: CertificateAuthority
    private let encodedHeader: String

    private struct Header: Encodable {
        let alg = "ES256"
        let x5c: [String]
    }

    public init(authority: CertificateAuthority) throws {
        self.authority = authority
        self.encodedHeader = try JSONEncoder.apple.encode(Header(x5c: authority.x5c)).base64URLEncodedString()
    }

    /// Returns the compact serialization `header.payload.signature`.
    public func sign(_ payload: some Encodable) throws -> String {
        let body = try JSONEncoder.apple.encode(payload).base64URLEncodedString()
        let signingInput = "\(encodedHeader).\(body)"
        let signature = try authority.leafKey.signature(for: Data(signingInput.utf8))
        return "\(signingInput).\(signature.rawRepresentation.base64URLEncodedString())"
    }
}

extension JSONEncoder {
    /// Apple's JSON style: key order as declared, no escaped slashes.
    static var apple: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }
}

extension Data {
    /// RFC 4648 §5 base64url without padding, as JWS requires.
    func base64URLEncodedString() -> String {
        base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url with or without padding; nil when it isn't base64url.
    init?(base64URLEncoded text: some StringProtocol) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let remainder = base64.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { base64 += String(repeating: "=", count: 4 - remainder) }
        self.init(base64Encoded: base64)
    }
}
