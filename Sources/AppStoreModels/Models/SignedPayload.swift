/// A payload Apple signs as a JWS and whose own date anchors offline certificate validation.
public protocol SignedPayload: Codable, Sendable {
    /// The instant the certificate chain is checked at when validating at the signing date:
    /// `signedDate` for most payloads, `receiptCreationDate` for an app transaction.
    var signingDate: Timestamp? { get }
}
