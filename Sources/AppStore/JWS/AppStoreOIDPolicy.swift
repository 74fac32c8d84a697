import SwiftASN1
import X509

/// Requires Apple's marker extensions: the WWDR intermediate OID on the intermediate and the
/// receipt-signing OID on the leaf, on a chain of exactly leaf → intermediate → root.
///
/// Chaining to Apple Root CA - G3 alone is not enough: the same root issues certificates for
/// many other purposes, and only these OIDs say "this key signs App Store data".
struct AppStoreOIDPolicy: VerifierPolicy {
    static let wwdrIntermediateOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    static let receiptSignerOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]

    /// Apple marks both extensions non-critical; nothing here is enforced as a critical extension.
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        guard chain.count == 3 else {
            return .failsToMeetPolicy(reason: "chain has \(chain.count) certificates, expected 3")
        }
        guard chain[1].extensions.contains(where: { $0.oid == Self.wwdrIntermediateOID }) else {
            return .failsToMeetPolicy(reason: "intermediate lacks the WWDR OID 1.2.840.113635.100.6.2.1")
        }
        guard chain[0].extensions.contains(where: { $0.oid == Self.receiptSignerOID }) else {
            return .failsToMeetPolicy(reason: "leaf lacks the receipt signing OID 1.2.840.113635.100.6.11.1")
        }
        return .meetsPolicy
    }
}
