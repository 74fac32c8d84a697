import AppStore
import AppStoreModels
import Basics
import Foundation
import Purchases
import Synchronization

/// An ``AppleTransactionSource`` answering from a script, recording every call. Raw Apple
/// answers go through the real `AppleOutcomeClassifier`, as the production adapter's do.
final class FakeAppleSource: AppleTransactionSource {
    struct Call: Hashable, Sendable, CustomStringConvertible {
        var endpoint: AppleCall.Endpoint
        /// The transaction id, or "receipt".
        var subject: String
        var environment: AppStoreEnvironment
        var description: String { "\(self.endpoint.rawValue)(\(self.subject), \(self.environment))" }
    }

    enum Answer: Sendable {
        /// Get Transaction Info's signedTransactionInfo.
        case signed(String)
        /// A verifyReceipt JSON answer with status 0.
        case receipt(String)
        /// Anything else Apple can answer, classified as the adapter would.
        case apple(AppleResponse)
    }

    private let responder: @Sendable (Call) -> Answer
    private let recorded = Mutex<[Call]>([])

    init(_ responder: @escaping @Sendable (Call) -> Answer) {
        self.responder = responder
    }

    /// A source that must not be called.
    static var unused: FakeAppleSource {
        FakeAppleSource { call in
            .apple(
                .serverAPI(
                    status: 500, body: Array("{\"errorCode\":5000000,\"note\":\"unexpected \(call)\"}".utf8),
                    retryAfter: nil))
        }
    }

    var calls: [Call] { self.recorded.withLock { $0 } }

    func transactionInfo(id: String, environment: AppStoreEnvironment) async throws(AppleCallFailure) -> String {
        let call = Call(endpoint: .transactionInfo, subject: id, environment: environment)
        self.recorded.withLock { $0.append(call) }
        switch self.responder(call) {
        case .signed(let jws): return jws
        case .receipt:
            throw AppleCallFailure(
                .terminal(TerminalReason(.receiptInvalid, "scripted a receipt for Get Transaction Info")))
        case .apple(let response): throw AppleCallFailure(Self.classify(response, environment))
        }
    }

    func verifyReceipt(_ receiptData: String, environment: AppStoreEnvironment) async throws(AppleCallFailure)
        -> VerifyReceiptResponse
    {
        let call = Call(endpoint: .verifyReceipt, subject: "receipt", environment: environment)
        self.recorded.withLock { $0.append(call) }
        switch self.responder(call) {
        case .receipt(let json):
            do {
                return try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(json.utf8))
            } catch {
                throw AppleCallFailure(.terminal(TerminalReason(.receiptInvalid, "scripted receipt does not decode")))
            }
        case .signed:
            throw AppleCallFailure(.terminal(TerminalReason(.receiptInvalid, "scripted a JWS for verifyReceipt")))
        case .apple(let response): throw AppleCallFailure(Self.classify(response, environment))
        }
    }

    /// "Try the other environment" is reported whatever the policy (the adapter's contract).
    private static func classify(_ response: AppleResponse, _ environment: AppStoreEnvironment) -> AppleOutcome {
        AppleOutcomeClassifier.classify(
            response, context: ClassificationContext(environment: environment, sandboxAllowed: true))
    }

    static func apiError(_ status: Int, _ code: Int64, retryAfter: String? = nil) -> Answer {
        .apple(
            .serverAPI(
                status: status, body: Array("{\"errorCode\":\(code),\"errorMessage\":\"scripted\"}".utf8),
                retryAfter: retryAfter))
    }

    static func receiptStatus(_ status: Int64, extra: String = "") -> Answer {
        .apple(.verifyReceipt(status: 200, body: Array("{\"status\":\(status)\(extra)}".utf8)))
    }
}

/// An ``AppleCallGate`` that records what it was asked and answers from a script.
final class ScriptedGate: AppleCallGate {
    private let decide: @Sendable (AppleCall) -> GateDecision
    private let recorded = Mutex<[AppleCall]>([])
    private let held = Mutex<[GateBooking?]>([])
    private let pauses = Mutex<[AppleCall: Duration]>([:])

    init(_ decide: @escaping @Sendable (AppleCall) -> GateDecision = { _ in .proceed }) {
        self.decide = decide
    }

    /// A gate that books every call a slot `delay` away, for our budget.
    static func booked(_ delay: Duration) -> ScriptedGate {
        ScriptedGate { call in .wait(slot(call, delay, .budget)) }
    }

    static func slot(_ call: AppleCall, _ delay: Duration, _ cause: GateSlot.Cause) -> GateSlot {
        GateSlot(
            delay: delay,
            booking: GateBooking(
                call, at: Int64(Date().timeIntervalSince1970 * 1000) + delay.milliseconds(rounding: .up)),
            cause: cause)
    }

    var calls: [AppleCall] { self.recorded.withLock { $0 } }
    /// The booking each ask held, in order.
    var bookings: [GateBooking?] { self.held.withLock { $0 } }
    /// What ``backOff(_:for:)`` was told, per call.
    var backOffs: [AppleCall: Duration] { self.pauses.withLock { $0 } }

    func acquire(_ call: AppleCall, holding booking: GateBooking?) async throws -> GateDecision {
        self.recorded.withLock { $0.append(call) }
        self.held.withLock { $0.append(booking) }
        return self.decide(call)
    }

    /// Books the caller's slot at the end of the pause.
    func backOff(_ call: AppleCall, for delay: Duration) async throws -> GateSlot {
        self.pauses.withLock { $0[call] = delay }
        return Self.slot(call, delay, .applePause)
    }
}
