import AppStoreModels
import Foundation

/// App Store Server API responses: HTTP status plus `{"errorCode", "errorMessage"}`.
enum ServerAPIClassification {
    typealias Delay = AppleOutcomeClassifier.Delay

    static func classify(status: Int, body: [UInt8], retryAfter: String?, context: ClassificationContext)
        -> AppleOutcome
    {
        if (200..<300).contains(status) {
            // 202/204 carry no body (consumption); otherwise the body must be a JSON object.
            if body.isEmpty || JSONBody.isObject(body) { return .ok }
            return .retry(
                after: Delay.invalidBody,
                reason: RetryReason(.invalidResponseBody, "HTTP \(status) with a non-JSON body"))
        }
        let apiError = JSONBody.object(body).flatMap { JSONBody.integer($0["errorCode"]) }
        let message = JSONBody.object(body).flatMap { $0["errorMessage"] as? String } ?? ""

        if status == 401 {
            return .retry(
                after: Delay.configuration,
                reason: RetryReason(
                    .authentication,
                    "HTTP 401: check key type, kid/iss/bid, clock; production answers 401 before the first release")
            )
        }
        if status == 429 || apiError == 4_290_000 {
            return .retry(
                after: self.rateLimitDelay(retryAfter, now: context.now), reason: RetryReason(.rateLimited, "HTTP 429"))
        }
        if let apiError {
            return self.classify(apiError: apiError, status: status, message: message, context: context)
        }
        if status >= 500 {
            return .retry(after: Delay.serverError, reason: RetryReason(.serverError, "HTTP \(status)"))
        }
        if status == 404 {
            return .terminal(TerminalReason(.transactionNotFound, "HTTP 404 without an Apple error code"))
        }
        return .retry(
            after: Delay.configuration,
            reason: RetryReason(.requestRejected, "HTTP \(status) without an Apple error code"))
    }

    private static func classify(apiError: Int64, status: Int, message: String, context: ClassificationContext)
        -> AppleOutcome
    {
        let detail = "\(apiError) \(message)"
        switch apiError {
        case 5_000_000, 5_000_001:
            return .retry(after: Delay.serverError, reason: RetryReason(.serverError, detail))
        case 4_040_002, 4_040_004, 4_040_006:
            return .retry(after: Delay.appleRetryable, reason: RetryReason(.appleRetryable, detail))
        case 4_040_010:
            // Production first; one look in sandbox; missing in both means it exists nowhere.
            if context.environment == .production, !context.switchedEnvironment {
                if context.sandboxAllowed { return .switchEnvironment(to: .sandbox) }
                return .terminal(
                    TerminalReason(.transactionNotFound, "\(detail) (sandbox not allowed)", appleCode: apiError))
            }
            return .terminal(TerminalReason(.transactionNotFound, detail, appleCode: apiError))
        case 4_040_001, 4_040_003, 4_040_005, 4_000_006, 4_000_008, 4_040_019:
            return .terminal(TerminalReason(.transactionNotFound, detail, appleCode: apiError))
        case 4_000_002:
            return .terminal(TerminalReason(.wrongBundle, detail, appleCode: apiError))
        default:
            if status >= 500 || apiError >= 5_000_000 {
                return .retry(after: Delay.serverError, reason: RetryReason(.serverError, detail))
            }
            return .retry(after: Delay.configuration, reason: RetryReason(.requestRejected, detail))
        }
    }

    /// `Retry-After` is a UNIX time in **milliseconds** (Apple *Identifying rate limits*).
    /// Values that look like seconds-from-now (small) are honoured too.
    static func rateLimitDelay(_ header: String?, now: Date) -> Duration {
        guard let header, let value = Int64(header.trimmingCharacters(in: .whitespaces)), value >= 0 else {
            return Delay.rateLimitedDefault
        }
        let nowMs = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        let waitMs: Int64 = value > 1_000_000_000_000 ? max(0, value - nowMs) : value * 1000
        return min(.milliseconds(waitMs), Delay.rateLimitedMaximum)
    }
}
