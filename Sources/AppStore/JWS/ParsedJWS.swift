public import AppStoreModels

/// A compact JWS split, base64-decoded and its payload decoded, with no trust decision yet.
///
/// Lets a caller read a claim it needs to choose the verifier (the environment) and then
/// verify, without decoding the JWS twice; ``SignedDataVerifier`` takes it in place of the
/// text. Until verified, nothing in it may be acted on.
public struct ParsedJWS<Payload: SignedPayload>: Sendable {
    let compact: CompactJWS
    /// The payload as the JWS claims it, unverified.
    public let claimedPayload: Payload

    public init(_ jws: String) throws(VerificationError) {
        self.compact = try CompactJWS(jws)
        self.claimedPayload = try self.compact.decodePayload(as: Payload.self)
    }
}
