public import AppStore
public import Foundation

/// How the verify stage checks purchases.
public struct VerifyConfiguration: Sendable {
    /// How app receipts are checked with Apple.
    public enum ReceiptValidation: Sendable, Hashable {
        /// Decode locally to transaction ids and look each up with Get Transaction Info.
        case serverAPI
        /// Send the receipt to the deprecated verifyReceipt endpoint (production first,
        /// sandbox on 21007), for apps that still depend on it.
        case verifyReceipt
    }

    public var bundleId: String
    /// Required when production is accepted (production notifications carry it).
    public var appAppleId: Int64?
    /// DER roots JWS chains must lead to; Apple Root CA - G3 by default, the simulator's root
    /// in `iap-dev dev`.
    public var rootCertificates: [Data]
    public var validationTime: ValidationTime
    /// Ask Apple's OCSP responders whether leaf and intermediate are revoked (chains are then
    /// validated at the current time; a "good" answer is trusted for 15 minutes).
    public var onlineChecks: Bool
    /// How long one OCSP query may take.
    public var ocspTimeout: Duration
    /// What a chain gets when its responder cannot be reached.
    public var whenOCSPUnreachable: OCSPUnreachable
    public var environmentPolicy: EnvironmentPolicy
    public var receiptValidation: ReceiptValidation
    /// The longest wait for an Apple call slot slept with the record in hand; a later slot
    /// parks the record until then (a runtime wait: a Kafka write and a Redis entry, worth it
    /// only for waits longer than a few round trips).
    public var appleWaitInPlace: Duration

    public init(
        bundleId: String,
        appAppleId: Int64? = nil,
        rootCertificates: [Data] = [AppleRoots.rootCAG3],
        validationTime: ValidationTime = .signedDate,
        onlineChecks: Bool = false,
        ocspTimeout: Duration = .seconds(5),
        whenOCSPUnreachable: OCSPUnreachable = .retry,
        environmentPolicy: EnvironmentPolicy = .init(),
        receiptValidation: ReceiptValidation = .serverAPI,
        appleWaitInPlace: Duration = .seconds(2)
    ) {
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.rootCertificates = rootCertificates
        self.validationTime = validationTime
        self.onlineChecks = onlineChecks
        self.ocspTimeout = ocspTimeout
        self.whenOCSPUnreachable = whenOCSPUnreachable
        self.environmentPolicy = environmentPolicy
        self.receiptValidation = receiptValidation
        self.appleWaitInPlace = appleWaitInPlace
    }
}
