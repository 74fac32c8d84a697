public import AppStore
public import AppStoreModels
public import Contracts
public import Foundation
public import Logging
import Synchronization

/// The verify stage's rules: turns one ``VerifyRequest`` into Apple-verified transactions or
/// an explicit ``VerifyOutcome``.
///
/// Signed transactions and notifications are verified locally (no Apple call). Bare ids,
/// StoreKit 1 transaction receipts and app receipts are looked up with Apple through the
/// ``AppleTransactionSource``, after the ``VerifiedTransactionCache`` (the same purchase often
/// arrives three ways) and the ``AppleCallGate``. Infrastructure errors from the cache or the
/// gate are thrown: the runtime retries them like any transient failure.
public struct TransactionVerifier: Sendable {
    public let configuration: VerifyConfiguration
    let source: any AppleTransactionSource
    let cache: any VerifiedTransactionCache
    /// The shared gate; within ``verify(_:holding:)``, the gate as the request sees it.
    private(set) var gate: any AppleCallGate
    let logger: Logger
    let now: @Sendable () -> Timestamp
    /// One verifier per accepted environment: a verifier is bound to one environment, so
    /// sandbox data can never pass a production check.
    private let verifiers: [AppStoreEnvironment: SignedDataVerifier]

    public init(
        configuration: VerifyConfiguration,
        source: any AppleTransactionSource,
        cache: any VerifiedTransactionCache,
        gate: any AppleCallGate,
        logger: Logger = Logger(label: "iap.verify"),
        now: @escaping @Sendable () -> Timestamp = { Timestamp(Date()) },
        onOCSPOfflineAccept: @escaping @Sendable () -> Void = {}
    ) throws(ConfigurationError) {
        self.configuration = configuration
        self.source = source
        self.cache = cache
        self.gate = gate
        self.logger = logger
        self.now = now
        self.verifiers = try configuration.signedDataVerifiers(
            logger: logger, onOfflineAccept: onOCSPOfflineAccept)
    }

    /// Verifies one request. `booking` is the Apple call slot the request waited for (its
    /// earlier ``VerifyOutcome/wait(_:)``): the first call it matches goes out on it.
    public func verify(_ request: VerifyRequest, holding booking: GateBooking? = nil) async throws -> VerifyOutcome {
        guard let booking else { return try await self.verifyRequest(request) }
        var holding = self
        holding.gate = BookingHolder(gate: self.gate, booking: booking)
        return try await holding.verifyRequest(request)
    }

    private func verifyRequest(_ request: VerifyRequest) async throws -> VerifyOutcome {
        if request.kind != .notification, let bundleId = request.bundleId, bundleId != self.configuration.bundleId {
            return .reject(
                Rejection(.wrongBundle, "event bundleId '\(bundleId)' is not \(self.configuration.bundleId)"))
        }
        switch request.kind {
        case .signedTransaction:
            return try await self.verifySignedTransaction(request)
        case .notification:
            return try await self.verifyNotification(request)
        case .appTransaction:
            return try await self.verifyAppTransaction(request)
        case .transactionId:
            return try await self.lookUp([request.payload], for: request)
        case .transactionReceipt:
            return try await self.verifyTransactionReceipt(request)
        case .appReceipt:
            switch self.configuration.receiptValidation {
            case .serverAPI: return try await self.verifyAppReceiptWithServerAPI(request)
            case .verifyReceipt: return try await self.verifyAppReceiptWithVerifyReceipt(request)
            }
        }
    }

    // MARK: - Shared

    /// A verifier of some accepted environment, for checking signatures of refused payloads.
    var anyVerifier: SignedDataVerifier? {
        self.configuration.environmentPolicy.acceptedEnvironments.lazy.compactMap { self.verifiers[$0] }.first
    }

    /// The verifier for data claiming `environment`, or the policy's refusal.
    func verifier(for environment: AppStoreEnvironment?) -> Result<SignedDataVerifier, Rejection> {
        guard let environment else { return .failure(Rejection(.wrongEnvironment, "payload names no environment")) }
        if let refusal = self.configuration.environmentPolicy.refusal(for: environment) { return .failure(refusal) }
        guard let verifier = self.verifiers[environment] else {
            return .failure(Rejection(.wrongEnvironment, "no verifier for \(environment)"))
        }
        return .success(verifier)
    }

    func record(
        _ transaction: TransactionDetails,
        for request: VerifyRequest,
        notification: NotificationContext? = nil,
        renewal: RenewalDetails? = nil
    ) -> VerifiedTransaction {
        VerifiedTransaction(
            transaction: transaction,
            hints: request.hints,
            source: request.source,
            receivedAt: request.receivedAt,
            verifiedAt: self.now(),
            notification: notification,
            renewal: renewal
        )
    }

    /// A local verification refusal as an outcome, through the shared classifier (OCSP
    /// unreachable → retry; chain → invalid_certificate; bundle → wrong_bundle; …).
    static func outcome(for error: VerificationError, field: String) -> VerifyOutcome {
        switch AppleOutcomeClassifier.classify(.verification(error)) {
        case .retry(let after, let reason): .retry(after: after, reason: reason)
        case .terminal(let reason): .reject(Rejection(ReasonCode(reason.code), "\(field): \(error)"))
        case .ok, .switchEnvironment: .reject(Rejection(.invalidSignature, "\(field): \(error)"))
        }
    }
}

/// The gate as one request that waited for a slot sees it: the first ask for the booked call
/// holds the booking, every other ask is the shared gate's. A request may ask for several calls
/// (a receipt's purchases, the other environment); only the one it waited for was booked.
private final class BookingHolder: AppleCallGate {
    private let gate: any AppleCallGate
    private let booking: Mutex<GateBooking?>

    init(gate: any AppleCallGate, booking: GateBooking) {
        self.gate = gate
        self.booking = Mutex(booking)
    }

    func acquire(_ call: AppleCall, holding held: GateBooking?) async throws -> GateDecision {
        let booked =
            held
            ?? booking.withLock { booking in
                guard booking?.call == call else { return nil }
                defer { booking = nil }
                return booking
            }
        return try await gate.acquire(call, holding: booked)
    }

    func backOff(_ call: AppleCall, for delay: Duration) async throws -> GateSlot {
        try await gate.backOff(call, for: delay)
    }
}
