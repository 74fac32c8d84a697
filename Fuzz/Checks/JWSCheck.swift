import AppStore
import AppStoreModels
import Foundation

/// Parsing and verifying arbitrary compact JWS text must end in a result or an error, never a trap.
///
/// The input goes through `UnverifiedJWS` (operators' `iap jws decode`, the gateway's routing
/// key) and through every `SignedDataVerifier` entry point of two verifiers anchored in Apple
/// Root CA - G3, one per seed environment. Verification runs offline at the payload's signing
/// date, as for replays, so mutations of the real vectors in the corpus get past the chain to
/// the signature and identity checks instead of stopping at an expired certificate.
/// The hand-written readers of the header and of Apple's transaction (D63) must read what
/// `JSONDecoder` reads whenever they read anything.
/// True when a verifier accepted the input.
@discardableResult
public func checkJWS(_ bytes: [UInt8]) async throws(FuzzFinding) -> Bool {
    let text = String(decoding: bytes, as: UTF8.self)
    if let unverified = try? UnverifiedJWS(text) {
        try checkHandReaders(header: unverified.headerJSON, payload: unverified.payloadJSON)
        _ = try? unverified.decodePayload(as: JWSTransactionDecodedPayload.self)
        _ = try? unverified.decodePayload(as: JWSRenewalInfoDecodedPayload.self)
        _ = try? unverified.decodePayload(as: ResponseBodyV2DecodedPayload.self)
        _ = try? unverified.decodePayload(as: AppTransaction.self)
    }
    var verified = false
    for verifier in verifiers {
        let results = [
            await verifier.verifyAndDecodeTransaction(text).payload != nil,
            await verifier.verifyAndDecodeRenewalInfo(text).payload != nil,
            await verifier.verifyAndDecodeNotification(text).payload != nil,
            await verifier.verifyAndDecodeAppTransaction(text).payload != nil,
        ]
        verified = verified || results.contains(true)
    }
    return verified
}

private func checkHandReaders(header: [UInt8], payload: [UInt8]) throws(FuzzFinding) {
    if let read = CompactJWS.Header.read(header) {
        guard let reference = try? JSONDecoder().decode(CompactJWS.Header.self, from: Data(header)),
            reference.alg == read.alg, reference.x5c == read.x5c
        else { throw FuzzFinding("JWS header: the hand-written reader and JSONDecoder disagree") }
    }
    if let read = JWSTransactionDecodedPayload.read(payload) {
        let reference = try? JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: Data(payload))
        guard reference == read else {
            throw FuzzFinding(
                "JWSTransactionDecodedPayload: the hand-written reader read \(read), JSONDecoder \(String(describing: reference))"
            )
        }
    }
}

/// The bundles, app and environments of the vectors the corpus starts from
/// (shared/vectors/MANIFEST.json), so a seed verifies and its mutations reach every check.
private let verifiers: [SignedDataVerifier] = {
    do {
        return [
            try SignedDataVerifier(.init(bundleId: "com.goodheartapp", environment: .sandbox)),
            try SignedDataVerifier(
                .init(bundleId: "com.nineton.taller", appAppleId: 6_450_284_872, environment: .production)),
        ]
    } catch {
        fatalError("verifier configuration refused: \(error)")
    }
}()
