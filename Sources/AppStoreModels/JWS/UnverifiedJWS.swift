/// The parts of a compact JWS, decoded without any trust decision: for operators inspecting
/// data (`iap jws decode`) and for routing keys at intake. Never grant anything from this.
public struct UnverifiedJWS: Sendable {
    public var algorithm: String?
    public var certificateCount: Int
    /// The header's JSON text.
    public var headerJSON: [UInt8]
    /// The payload's JSON text.
    public var payloadJSON: [UInt8]

    public init(_ jws: String) throws(VerificationError) {
        let parsed = try CompactJWS(jws)
        self.algorithm = parsed.header.alg
        self.certificateCount = parsed.header.x5c?.count ?? 0
        self.payloadJSON = parsed.payload
        self.headerJSON = parsed.headerJSON
    }

    /// Decodes the payload as a model, still without verification.
    public func decodePayload<Payload: Decodable>(as type: Payload.Type) throws(VerificationError) -> Payload {
        try CompactJWS.decode(self.payloadJSON, as: type)
    }
}
