import AppStoreModels
import Foundation

/// Maps every answer from Apple to an ``AppleOutcome`` (reference tables: App Store Server API
/// error codes, verifyReceipt statuses, transport failures, local verification errors).
public enum AppleOutcomeClassifier {
    /// Floors for retries. The pipeline's exponential backoff grows from these.
    public enum Delay {
        public static let serverError: Duration = .seconds(2)
        public static let transport: Duration = .seconds(1)
        public static let timeout: Duration = .seconds(2)
        /// Documented "try again" codes and 21100–21199 with the retry flag start at 5 s.
        public static let appleRetryable: Duration = .seconds(5)
        /// A 200 with HTML means an outage in progress (2020-01-24): back off more.
        public static let invalidBody: Duration = .seconds(5)
        /// 429 without a usable `Retry-After`: limits are enforced per hour, so wait a while.
        public static let rateLimitedDefault: Duration = .seconds(60)
        /// Longest wait taken from `Retry-After`, against a clock far off or a bogus header.
        public static let rateLimitedMaximum: Duration = .seconds(3600)
        /// Credentials problems: slow, but never dropped.
        public static let configuration: Duration = .seconds(60)
        public static let revocationCheck: Duration = .seconds(30)
    }

    public static func classify(_ response: AppleResponse, context: ClassificationContext = .init()) -> AppleOutcome {
        switch response {
        case .serverAPI(let status, let body, let retryAfter):
            ServerAPIClassification.classify(status: status, body: body, retryAfter: retryAfter, context: context)
        case .verifyReceipt(let status, let body):
            VerifyReceiptClassification.classify(httpStatus: status, body: body, context: context)
        case .transportFailure(.timeout):
            .retry(after: Delay.timeout, reason: RetryReason(.timeout, "no answer before the deadline"))
        case .transportFailure(.connection(let detail)):
            .retry(after: Delay.transport, reason: RetryReason(.transport, detail))
        case .verification(let error):
            self.classify(error)
        }
    }

    private static func classify(_ error: VerificationError) -> AppleOutcome {
        switch error.code {
        case .retryableVerificationFailure:
            .retry(after: Delay.revocationCheck, reason: RetryReason(.revocationCheckUnavailable, error.reason))
        case .invalidAppIdentifier:
            .terminal(TerminalReason(.wrongBundle, error.reason))
        case .invalidEnvironment:
            .terminal(TerminalReason(.wrongEnvironment, error.reason))
        case .invalidCertificate, .invalidChain:
            .terminal(TerminalReason(.invalidCertificate, error.reason))
        default:
            .terminal(TerminalReason(.invalidSignature, error.reason))
        }
    }
}
