import AppStore
import AppStoreModels
import Foundation
import Testing

/// Every documented Apple answer maps to the intended action.
@Suite(.timeLimit(.minutes(2))) struct ClassificationTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var response: AppleResponse
        var context = ClassificationContext(now: Date(timeIntervalSince1970: 1_800_000_000))
        var expected: AppleOutcome
        var testDescription: String { self.name }
    }

    static func body(_ json: String) -> [UInt8] { Array(json.utf8) }
    static func apiError(_ code: Int, status: Int) -> AppleResponse {
        .serverAPI(status: status, body: body("{\"errorCode\": \(code), \"errorMessage\": \"m\"}"), retryAfter: nil)
    }
    static func receipt(_ json: String) -> AppleResponse { .verifyReceipt(status: 200, body: body(json)) }
    static func retry(_ seconds: Int, _ code: RetryReason.Code) -> AppleOutcome {
        .retry(after: .seconds(seconds), reason: RetryReason(code))
    }
    static func terminal(_ code: TerminalReason.Code) -> AppleOutcome { .terminal(TerminalReason(code)) }

    static let sandboxDisallowed = ClassificationContext(sandboxAllowed: false)
    static let inSandbox = ClassificationContext(environment: .sandbox, switchedEnvironment: true)

    static let serverAPICases: [Case] = [
        Case(
            name: "200 JSON",
            response: .serverAPI(status: 200, body: body("{\"signedTransactionInfo\":\"x\"}"), retryAfter: nil),
            expected: .ok),
        Case(name: "202 empty", response: .serverAPI(status: 202, body: [], retryAfter: nil), expected: .ok),
        Case(
            name: "200 HTML", response: .serverAPI(status: 200, body: body("<html>down</html>"), retryAfter: nil),
            expected: retry(5, .invalidResponseBody)),
        Case(
            name: "401 no body", response: .serverAPI(status: 401, body: [], retryAfter: nil),
            expected: retry(60, .authentication)),
        Case(
            name: "429 Retry-After ms",
            response: .serverAPI(status: 429, body: body("{\"errorCode\":4290000}"), retryAfter: "1800000012500"),
            expected: .retry(after: .milliseconds(12_500), reason: RetryReason(.rateLimited))),
        Case(
            name: "429 no header", response: .serverAPI(status: 429, body: [], retryAfter: nil),
            expected: retry(60, .rateLimited)),
        Case(
            name: "429 past Retry-After", response: .serverAPI(status: 429, body: [], retryAfter: "1799999990000"),
            expected: .retry(after: .zero, reason: RetryReason(.rateLimited))),
        Case(name: "5000000", response: apiError(5_000_000, status: 500), expected: retry(2, .serverError)),
        Case(name: "5000001", response: apiError(5_000_001, status: 500), expected: retry(2, .serverError)),
        Case(
            name: "503 HTML", response: .serverAPI(status: 503, body: body("<html/>"), retryAfter: nil),
            expected: retry(2, .serverError)),
        Case(name: "4040002", response: apiError(4_040_002, status: 404), expected: retry(5, .appleRetryable)),
        Case(name: "4040004", response: apiError(4_040_004, status: 404), expected: retry(5, .appleRetryable)),
        Case(name: "4040006", response: apiError(4_040_006, status: 404), expected: retry(5, .appleRetryable)),
        Case(name: "4040001", response: apiError(4_040_001, status: 404), expected: terminal(.transactionNotFound)),
        Case(name: "4040003", response: apiError(4_040_003, status: 404), expected: terminal(.transactionNotFound)),
        Case(name: "4040005", response: apiError(4_040_005, status: 404), expected: terminal(.transactionNotFound)),
        Case(
            name: "4040010 production", response: apiError(4_040_010, status: 404),
            expected: .switchEnvironment(to: .sandbox)),
        Case(
            name: "4040010 sandbox not allowed", response: apiError(4_040_010, status: 404), context: sandboxDisallowed,
            expected: terminal(.transactionNotFound)),
        Case(
            name: "4040010 after switch", response: apiError(4_040_010, status: 404), context: inSandbox,
            expected: terminal(.transactionNotFound)),
        Case(name: "4000006", response: apiError(4_000_006, status: 400), expected: terminal(.transactionNotFound)),
        Case(name: "4000002", response: apiError(4_000_002, status: 400), expected: terminal(.wrongBundle)),
        Case(name: "4000000", response: apiError(4_000_000, status: 400), expected: retry(60, .requestRejected)),
        Case(name: "4000017", response: apiError(4_000_017, status: 400), expected: retry(60, .requestRejected)),
        Case(name: "4030004", response: apiError(4_030_004, status: 403), expected: retry(60, .requestRejected)),
        Case(name: "4040008", response: apiError(4_040_008, status: 404), expected: retry(60, .requestRejected)),
        Case(name: "4040019", response: apiError(4_040_019, status: 404), expected: terminal(.transactionNotFound)),
        Case(name: "9990000 unknown 500", response: apiError(9_990_000, status: 500), expected: retry(2, .serverError)),
        Case(name: "unknown 400", response: apiError(4_009_999, status: 400), expected: retry(60, .requestRejected)),
        Case(name: "timeout", response: .transportFailure(.timeout), expected: retry(2, .timeout)),
        Case(name: "connection", response: .transportFailure(.connection("refused")), expected: retry(1, .transport)),
    ]

    static let verifyReceiptCases: [Case] = [
        Case(name: "0", response: receipt("{\"status\":0}"), expected: .ok),
        Case(name: "21006", response: receipt("{\"status\":21006}"), expected: .ok),
        Case(name: "21000", response: receipt("{\"status\":21000}"), expected: terminal(.receiptInvalid)),
        Case(name: "21001", response: receipt("{\"status\":21001}"), expected: terminal(.receiptInvalid)),
        Case(name: "21002", response: receipt("{\"status\":21002}"), expected: retry(5, .appleRetryable)),
        Case(name: "21003", response: receipt("{\"status\":21003}"), expected: terminal(.receiptInvalid)),
        Case(name: "21004", response: receipt("{\"status\":21004}"), expected: retry(60, .sharedSecret)),
        Case(name: "21005", response: receipt("{\"status\":21005}"), expected: retry(5, .appleRetryable)),
        Case(
            name: "21007 production", response: receipt("{\"status\":21007}"),
            expected: .switchEnvironment(to: .sandbox)),
        Case(
            name: "21007 sandbox not allowed", response: receipt("{\"status\":21007}"), context: sandboxDisallowed,
            expected: terminal(.sandboxNotAllowed)),
        Case(
            name: "21007 already in sandbox", response: receipt("{\"status\":21007}"), context: inSandbox,
            expected: terminal(.wrongEnvironment)),
        Case(
            name: "21008 sandbox", response: receipt("{\"status\":21008}"),
            context: ClassificationContext(environment: .sandbox), expected: .switchEnvironment(to: .production)),
        Case(name: "21008 production", response: receipt("{\"status\":21008}"), expected: terminal(.wrongEnvironment)),
        Case(name: "21009", response: receipt("{\"status\":21009}"), expected: retry(5, .appleRetryable)),
        Case(name: "21010", response: receipt("{\"status\":21010}"), expected: terminal(.transactionNotFound)),
        Case(
            name: "21100 is_retryable true", response: receipt("{\"status\":21100,\"is_retryable\":true}"),
            expected: retry(5, .appleRetryable)),
        Case(
            name: "21150 is-retryable 1", response: receipt("{\"status\":21150,\"is-retryable\":1}"),
            expected: retry(5, .appleRetryable)),
        Case(
            name: "21199 is_retryable false", response: receipt("{\"status\":21199,\"is_retryable\":false}"),
            expected: terminal(.receiptInvalid)),
        Case(
            name: "21199 is-retryable 0", response: receipt("{\"status\":21199,\"is-retryable\":0}"),
            expected: terminal(.receiptInvalid)),
        Case(name: "21120 no flag", response: receipt("{\"status\":21120}"), expected: terminal(.receiptInvalid)),
        Case(
            name: "HTML 200", response: .verifyReceipt(status: 200, body: body("<html>Service Unavailable</html>")),
            expected: retry(5, .invalidResponseBody)),
        Case(
            name: "empty 200", response: .verifyReceipt(status: 200, body: []), expected: retry(5, .invalidResponseBody)
        ),
        Case(
            name: "JSON without status", response: receipt("{\"receipt\":{}}"), expected: retry(5, .invalidResponseBody)
        ),
        Case(name: "HTTP 503", response: .verifyReceipt(status: 503, body: []), expected: retry(2, .serverError)),
        Case(name: "unknown status", response: receipt("{\"status\":12345}"), expected: terminal(.receiptInvalid)),
    ]

    static let verificationCases: [Case] = [
        Case(
            name: "OCSP unreachable", response: .verification(VerificationError(.retryableVerificationFailure, "")),
            expected: retry(30, .revocationCheckUnavailable)),
        Case(
            name: "bad signature", response: .verification(VerificationError(.verificationFailure, "")),
            expected: terminal(.invalidSignature)),
        Case(
            name: "bad format", response: .verification(VerificationError(.invalidJWTFormat, "")),
            expected: terminal(.invalidSignature)),
        Case(
            name: "bad chain", response: .verification(VerificationError(.invalidChain, "")),
            expected: terminal(.invalidCertificate)),
        Case(
            name: "bad certificate", response: .verification(VerificationError(.invalidCertificate, "")),
            expected: terminal(.invalidCertificate)),
        Case(
            name: "wrong bundle", response: .verification(VerificationError(.invalidAppIdentifier, "")),
            expected: terminal(.wrongBundle)),
        Case(
            name: "wrong environment", response: .verification(VerificationError(.invalidEnvironment, "")),
            expected: terminal(.wrongEnvironment)),
    ]

    @Test(arguments: serverAPICases + verifyReceiptCases + verificationCases)
    func classifies(_ testCase: Case) {
        let outcome = AppleOutcomeClassifier.classify(testCase.response, context: testCase.context)
        #expect(outcome == testCase.expected)
        if case .retry(let after, let reason) = outcome, case .retry(let expectedAfter, _) = testCase.expected {
            #expect(after == expectedAfter, "\(reason)")
        }
    }

    @Test func credentialsProblemsAreFlaggedForAlerting() {
        guard
            case .retry(_, let reason) = AppleOutcomeClassifier.classify(
                .serverAPI(status: 401, body: [], retryAfter: nil))
        else {
            Issue.record("401 must retry")
            return
        }
        #expect(reason.isConfigurationError)
        guard case .retry(_, let transient) = AppleOutcomeClassifier.classify(.transportFailure(.timeout)) else {
            Issue.record("timeout must retry")
            return
        }
        #expect(!transient.isConfigurationError)
    }

    @Test func refusedRequestsWaitForAFixInsteadOfRejectingThePurchase() {
        let body = Array(#"{"errorCode":4000017,"errorMessage":"Invalid request"}"#.utf8)
        guard
            case .retry(_, let reason) = AppleOutcomeClassifier.classify(
                .serverAPI(status: 400, body: body, retryAfter: nil))
        else {
            Issue.record("a refused request must not become a terminal rejection")
            return
        }
        #expect(reason.code == .requestRejected)
        #expect(reason.isConfigurationError, "operators are alerted: the purchase is stuck until the client is fixed")
    }
}
