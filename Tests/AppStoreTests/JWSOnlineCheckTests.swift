import AppStore
import AppStoreModels
import Foundation
import Synchronization
import TestSupport
import Testing

/// Online mode: OCSP is asked at the current time; no answer means "retry", never "reject".
@Suite(.timeLimit(.minutes(2))) struct JWSOnlineCheckTests {
    struct Unreachable: Error {}

    final class CountingUnreachableTransport: OCSPTransport {
        let calls = Atomic<Int>(0)
        func post(request: [UInt8], to uri: String) async throws -> [UInt8] {
            self.calls.add(1, ordering: .relaxed)
            throw Unreachable()
        }
    }

    @Test func unreachableResponderIsRetryable() async throws {
        var options = TestSigningChain.Options()
        options.leafOCSPURI = "http://127.0.0.1:9/ocsp"
        let chain = try TestSigningChain(options)
        let transport = CountingUnreachableTransport()
        let verifier = try SignedDataVerifier(
            .init(
                rootCertificates: [try chain.rootDER], bundleId: "com.example.game", environment: .sandbox,
                onlineChecks: true, ocspTransport: transport
            ))
        let payload = JWSChainTests.transactionPayload(extra: ["signedDate": Int64(Date().timeIntervalSince1970 * 1000)]
        )
        let result = await verifier.verifyAndDecodeTransaction(try chain.sign(payload))
        guard case .retryable(let error) = result else {
            Issue.record("expected retryable, got \(result)")
            return
        }
        #expect(error.code == .retryableVerificationFailure)
        #expect(transport.calls.load(ordering: .relaxed) >= 1)
    }

    @Test func unreachableResponderOverRealHTTPIsRetryable() async throws {
        var options = TestSigningChain.Options()
        options.leafOCSPURI = "http://127.0.0.1:9/ocsp"
        let chain = try TestSigningChain(options)
        let verifier = try SignedDataVerifier(
            .init(
                rootCertificates: [try chain.rootDER], bundleId: "com.example.game", environment: .sandbox,
                onlineChecks: true
            ))
        let payload = JWSChainTests.transactionPayload(extra: ["signedDate": Int64(Date().timeIntervalSince1970 * 1000)]
        )
        let result = await verifier.verifyAndDecodeTransaction(try chain.sign(payload))
        #expect(result.error?.code == .retryableVerificationFailure)
    }
}
