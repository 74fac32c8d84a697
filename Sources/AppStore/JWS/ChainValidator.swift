import AppStoreModels
import Crypto
import Foundation
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Validates `x5c[0]` (leaf) and `x5c[1]` (intermediate) up to the configured roots and hands
/// back the leaf's P-256 key. `x5c[2]` is never looked at: trust comes only from our roots.
final class ChainValidator: Sendable {
    enum Outcome: Sendable {
        case trusted(P256.Signing.PublicKey)
        case refused(VerificationError)
        case retryable(VerificationError)
    }

    private let roots: [Certificate]
    private let ocspTransport: (any OCSPTransport)?
    private let whenUnreachable: OCSPUnreachable
    private let onOfflineFallback: (@Sendable (String) -> Void)?
    private let cache = ChainCache()

    init(
        rootCertificates: [[UInt8]], ocspTransport: (any OCSPTransport)?, whenUnreachable: OCSPUnreachable = .retry,
        onOfflineFallback: (@Sendable (String) -> Void)? = nil
    ) throws(ConfigurationError) {
        guard !rootCertificates.isEmpty else {
            throw ConfigurationError(.invalidRootCertificate, "at least one trusted root certificate is required")
        }
        var roots: [Certificate] = []
        for (index, der) in rootCertificates.enumerated() {
            do {
                roots.append(try Certificate(derEncoded: der))
            } catch {
                throw ConfigurationError(
                    .invalidRootCertificate, "root certificate #\(index) is not DER X.509: \(error)")
            }
        }
        self.roots = roots
        self.ocspTransport = ocspTransport
        self.whenUnreachable = whenUnreachable
        self.onOfflineFallback = onOfflineFallback
    }

    /// - Parameters:
    ///   - validationTime: the instant certificate validity is checked at.
    ///   - online: also require a good OCSP answer for leaf and intermediate (checked at now).
    func validate(leaf: String, intermediate: String, at validationTime: Date, online: Bool) async -> Outcome {
        let key = ChainCache.Key(leaf: leaf, intermediate: intermediate)
        let now = Date()
        if let publicKey = self.cache.publicKey(for: key, validationTime: validationTime, online: online, now: now) {
            return .trusted(publicKey)
        }

        let leafCertificate: Certificate
        let intermediateCertificate: Certificate
        switch (Self.parse(leaf, role: "leaf"), Self.parse(intermediate, role: "intermediate")) {
        case (.success(let parsedLeaf), .success(let parsedIntermediate)):
            leafCertificate = parsedLeaf
            intermediateCertificate = parsedIntermediate
        case (.failure(let error), _), (_, .failure(let error)):
            return .refused(error)
        }

        let recorder: RecordingOCSPRequester? =
            if online, let transport = self.ocspTransport { RecordingOCSPRequester(transport: transport) } else { nil }
        if online, recorder == nil {
            return .refused(VerificationError(.invalidChain, "online checks requested without an OCSP transport"))
        }

        var verifier = Verifier(rootCertificates: CertificateStore(self.roots)) {
            RFC5280Policy(fixedExpiryValidationTime: validationTime)
            AppStoreOIDPolicy()
            if let recorder {
                OCSPVerifierPolicy(failureMode: .hard, requester: recorder)
            }
        }
        let result = await verifier.validate(
            leaf: leafCertificate,
            intermediates: CertificateStore([intermediateCertificate])
        )

        switch result {
        case .validCertificate(let chain):
            guard let publicKey = P256.Signing.PublicKey(chain.leaf.publicKey) else {
                return .refused(VerificationError(.invalidCertificate, "leaf key is not P-256"))
            }
            let entry = ChainCache.Entry(
                publicKey: publicKey,
                validFrom: chain.map(\.notValidBefore).max() ?? validationTime,
                validUntil: chain.map(\.notValidAfter).min() ?? validationTime,
                onlineCheckedUntil: online ? now.addingTimeInterval(ChainCache.onlineCheckLifetime) : nil
            )
            self.cache.store(entry, for: key, now: now)
            return .trusted(publicKey)
        case .couldNotValidate(let failures):
            if let unanswered = recorder?.transportFailure {
                guard self.whenUnreachable == .acceptOfflineChain else {
                    return .retryable(VerificationError(.retryableVerificationFailure, unanswered))
                }
                // Soft-fail: the offline checks decide, and the offline entry it caches is never
                // taken for an online-checked one, so the next validation asks the responder again.
                let offline = await self.validate(
                    leaf: leaf, intermediate: intermediate, at: validationTime, online: false)
                if case .trusted = offline { self.onOfflineFallback?(unanswered) }
                return offline
            }
            let reasons = failures.map { "\($0.policyFailureReason)" }
            let detail = reasons.isEmpty ? "no path to a trusted root" : reasons.joined(separator: "; ")
            return .refused(VerificationError(.invalidChain, "chain not valid at \(validationTime): \(detail)"))
        }
    }

    private static func parse(_ base64: String, role: String) -> Result<Certificate, VerificationError> {
        guard let der = Base64.decode(base64.utf8), !der.isEmpty else {
            return .failure(VerificationError(.invalidCertificate, "x5c \(role) is not base64"))
        }
        do {
            return .success(try Certificate(derEncoded: der))
        } catch {
            return .failure(VerificationError(.invalidCertificate, "x5c \(role) is not a DER X.509 certificate"))
        }
    }
}
