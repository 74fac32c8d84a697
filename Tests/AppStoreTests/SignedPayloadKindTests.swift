import AppStoreModels
import Foundation
import Testing

/// The payload-kind guess `iap jws verify --kind auto` and `iap-dev bench jws` share, on Apple's
/// own vectors: each is taken for what it is, and what does not decode for a transaction.
@Suite struct SignedPayloadKindTests {
    static func kind(ofVector path: String) throws -> SignedPayloadKind {
        SignedPayloadKind(detecting: try Vectors.text(path).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func appleVectorsAreTakenForWhatTheyAre() throws {
        #expect(try Self.kind(ofVector: "jws/sandbox-consumable-transaction.jws") == .transaction)
        #expect(try Self.kind(ofVector: "jws/sandbox-renewal-info.jws") == .renewal)
        #expect(try Self.kind(ofVector: "jws/production-test-notification.jws") == .notification)
    }

    @Test func whatDoesNotDecodeIsTakenForATransaction() {
        #expect(SignedPayloadKind(detecting: "not a jws") == .transaction)
    }
}
