public import AppStoreModels
import Crypto
import Foundation

/// Verifies and decodes data Apple signs as compact JWS: transactions, renewal infos,
/// notifications V2 and app transactions.
///
/// Procedure (Apple's `SignedDataVerifier`): 3 segments; header `alg` ES256 and `x5c` of
/// exactly 3 certificates; leaf + intermediate chained to the configured roots only, with
/// Apple's OIDs, at the payload's signing date or now (plus OCSP when online); the 64-byte
/// R||S signature over `header.payload`; then bundle id, environment and app Apple id.
public struct SignedDataVerifier: Sendable {
    public let configuration: Configuration
    private let chainValidator: ChainValidator

    public init(_ configuration: Configuration) throws(ConfigurationError) {
        if configuration.environment.isUnsignedTestEnvironment, !configuration.allowUnsignedTestEnvironments {
            throw ConfigurationError(
                .unsignedEnvironmentNotEnabled,
                "\(configuration.environment) data is unsigned; enable allowUnsignedTestEnvironments to accept it"
            )
        }
        if configuration.environment == .production, configuration.appAppleId == nil {
            throw ConfigurationError(.missingAppAppleId, "a Production verifier needs the app's appAppleId")
        }
        self.configuration = configuration
        let transport: (any OCSPTransport)? =
            configuration.onlineChecks ? (configuration.ocspTransport ?? HTTPOCSPTransport()) : nil
        self.chainValidator = try ChainValidator(
            rootCertificates: configuration.rootCertificates.map { Array($0) },
            ocspTransport: transport, whenUnreachable: configuration.whenOCSPUnreachable,
            onOfflineFallback: configuration.onOfflineFallback
        )
    }

    /// Verifies a signed transaction (`signedTransactionInfo`, StoreKit 2 `jwsRepresentation`).
    public func verifyAndDecodeTransaction(_ jws: String) async -> VerificationResult<JWSTransactionDecodedPayload> {
        do throws(VerificationError) {
            return await self.verifyAndDecodeTransaction(try ParsedJWS(jws))
        } catch {
            return .invalid(error)
        }
    }

    /// Verifies a signed transaction parsed earlier (to read its claimed environment).
    public func verifyAndDecodeTransaction(_ parsed: ParsedJWS<JWSTransactionDecodedPayload>) async
        -> VerificationResult<JWSTransactionDecodedPayload>
    {
        let result = await self.verifySignature(parsed)
        guard case .valid(let transaction) = result else { return result }
        if let refusal = self.checkIdentity(bundleId: transaction.bundleId, environment: transaction.environment) {
            return .invalid(refusal)
        }
        return result
    }

    /// Verifies signed renewal info; it carries no bundle id, so only the environment is checked.
    public func verifyAndDecodeRenewalInfo(_ jws: String) async -> VerificationResult<JWSRenewalInfoDecodedPayload> {
        let result = await self.verifySignature(jws, as: JWSRenewalInfoDecodedPayload.self)
        guard case .valid(let renewal) = result else { return result }
        if let refusal = self.checkEnvironment(renewal.environment) {
            return .invalid(refusal)
        }
        return result
    }

    /// Verifies an app transaction; `receiptType` is its environment.
    public func verifyAndDecodeAppTransaction(_ jws: String) async -> VerificationResult<AppTransaction> {
        do throws(VerificationError) {
            return await self.verifyAndDecodeAppTransaction(try ParsedJWS(jws))
        } catch {
            return .invalid(error)
        }
    }

    /// The same, for an AppTransaction already parsed (verify read its claimed environment).
    public func verifyAndDecodeAppTransaction(_ parsed: ParsedJWS<AppTransaction>) async
        -> VerificationResult<AppTransaction>
    {
        let result = await self.verifySignature(parsed)
        guard case .valid(let appTransaction) = result else { return result }
        if let refusal = self.checkIdentity(
            bundleId: appTransaction.bundleId,
            environment: appTransaction.receiptType,
            appAppleId: appTransaction.appAppleId,
            checkAppAppleId: true
        ) {
            return .invalid(refusal)
        }
        return result
    }

    /// Verifies a Retention Messaging real-time request. It names no bundle id: as Apple's
    /// libraries check it, its `appAppleId` (production) and its environment.
    public func verifyAndDecodeRealtimeRequest(_ jws: String) async -> VerificationResult<DecodedRealtimeRequestBody> {
        let result = await self.verifySignature(jws, as: DecodedRealtimeRequestBody.self)
        guard case .valid(let request) = result else { return result }
        if self.configuration.environment == .production, request.appAppleId != self.configuration.appAppleId {
            return .invalid(
                VerificationError(
                    .invalidAppIdentifier,
                    "payload appAppleId \(request.appAppleId.map(String.init) ?? "missing") is not \(self.configuration.appAppleId.map(String.init) ?? "configured")"
                ))
        }
        if let refusal = self.checkEnvironment(request.environment) { return .invalid(refusal) }
        return result
    }

    /// Checks signature and chain only and decodes the payload as `type`, without identity
    /// checks. For payload kinds this type has no dedicated method for.
    public func verifySignature<Payload: SignedPayload>(
        _ jws: String,
        as type: Payload.Type
    ) async -> VerificationResult<Payload> {
        do throws(VerificationError) {
            return await self.verifySignature(try ParsedJWS<Payload>(jws))
        } catch {
            return .invalid(error)
        }
    }

    /// Checks signature and chain of a JWS parsed earlier; its claimed payload becomes the
    /// verified one only on `.valid`.
    public func verifySignature<Payload: SignedPayload>(_ jws: ParsedJWS<Payload>) async -> VerificationResult<Payload>
    {
        let parsed = jws.compact
        let payload = jws.claimedPayload
        if self.configuration.environment.isUnsignedTestEnvironment {
            // Only reachable when explicitly enabled: Xcode/LocalTesting data has no Apple chain.
            return .valid(payload)
        }

        guard parsed.header.alg == "ES256" else {
            return .invalid(
                VerificationError(.invalidJWTFormat, "header alg is \(parsed.header.alg ?? "missing"), expected ES256"))
        }
        guard let x5c = parsed.header.x5c, x5c.count == 3 else {
            return .invalid(
                VerificationError(
                    .invalidJWTFormat,
                    "header x5c holds \(parsed.header.x5c?.count ?? 0) certificates, expected 3"
                ))
        }

        let online = self.configuration.onlineChecks
        let validationTime: Date =
            if !online, self.configuration.validationTime == .signedDate, let signed = payload.signingDate {
                signed.date
            } else {
                Date()
            }

        switch await self.chainValidator.validate(
            leaf: x5c[0], intermediate: x5c[1], at: validationTime, online: online)
        {
        case .refused(let error):
            return .invalid(error)
        case .retryable(let error):
            return .retryable(error)
        case .trusted(let publicKey):
            guard parsed.signature.count == 64,
                let signature = try? P256.Signing.ECDSASignature(rawRepresentation: parsed.signature),
                publicKey.isValidSignature(signature, for: SHA256.hash(data: parsed.signingInput))
            else {
                return .invalid(VerificationError(.verificationFailure, "ES256 signature does not match the leaf key"))
            }
            return .valid(payload)
        }
    }

    func checkEnvironment(_ environment: AppStoreEnvironment?) -> VerificationError? {
        guard environment == self.configuration.environment else {
            return VerificationError(
                .invalidEnvironment,
                "payload environment \(environment?.rawValue ?? "missing") is not \(self.configuration.environment)"
            )
        }
        return nil
    }

    /// Bundle id and environment always; app Apple id only in Production (sandbox payloads
    /// often omit it).
    func checkIdentity(
        bundleId: String?,
        environment: AppStoreEnvironment?,
        appAppleId: Int64? = nil,
        checkAppAppleId: Bool = false
    ) -> VerificationError? {
        guard bundleId == self.configuration.bundleId else {
            return VerificationError(
                .invalidAppIdentifier,
                "payload bundleId \(bundleId ?? "missing") is not \(self.configuration.bundleId)"
            )
        }
        if checkAppAppleId, self.configuration.environment == .production, appAppleId != self.configuration.appAppleId {
            return VerificationError(
                .invalidAppIdentifier,
                "payload appAppleId \(appAppleId.map(String.init) ?? "missing") is not \(self.configuration.appAppleId.map(String.init) ?? "configured")"
            )
        }
        return self.checkEnvironment(environment)
    }
}
