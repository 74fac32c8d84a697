import AppStoreModels

/// Legacy verifyReceipt answers: the outcome lives in the JSON `status` of an HTTP 200.
enum VerifyReceiptClassification {
    typealias Delay = AppleOutcomeClassifier.Delay

    static func classify(httpStatus: Int, body: [UInt8], context: ClassificationContext) -> AppleOutcome {
        guard httpStatus == 200 else {
            if httpStatus >= 500 || httpStatus == 429 {
                return .retry(after: Delay.serverError, reason: RetryReason(.serverError, "HTTP \(httpStatus)"))
            }
            return .terminal(TerminalReason(.receiptInvalid, "HTTP \(httpStatus)"))
        }
        guard let object = JSONBody.object(body), let status = JSONBody.integer(object["status"]) else {
            // Apple served HTML with 200 during the 2020-01-24 outage.
            return .retry(
                after: Delay.invalidBody, reason: RetryReason(.invalidResponseBody, "HTTP 200 without a JSON status"))
        }
        return self.classify(status: status, retryFlag: self.retryFlag(object), context: context)
    }

    static func classify(status: Int64, retryFlag: Bool?, context: ClassificationContext) -> AppleOutcome {
        let detail = "status \(status)"
        switch status {
        case 0, 21006:
            // 21006: valid receipt whose subscription expired (iOS 6 style); the data is usable.
            return .ok
        case 21007:
            if context.environment == .sandbox || context.switchedEnvironment {
                return .terminal(
                    TerminalReason(
                        .wrongEnvironment, "\(detail): sandbox receipt, already tried sandbox", appleCode: status))
            }
            guard context.sandboxAllowed else {
                return .terminal(TerminalReason(.sandboxNotAllowed, detail, appleCode: status))
            }
            return .switchEnvironment(to: .sandbox)
        case 21008:
            if context.environment == .production || context.switchedEnvironment {
                return .terminal(
                    TerminalReason(
                        .wrongEnvironment, "\(detail): production receipt, already tried production", appleCode: status)
                )
            }
            return .switchEnvironment(to: .production)
        case 21002, 21005, 21009:
            // 21002 is also "malformed"; the pipeline's retry budget bounds it.
            return .retry(after: Delay.appleRetryable, reason: RetryReason(.appleRetryable, detail))
        case 21004:
            return .retry(
                after: Delay.configuration, reason: RetryReason(.sharedSecret, "\(detail): shared secret mismatch"))
        case 21010:
            return .terminal(
                TerminalReason(.transactionNotFound, "\(detail): account not found or deleted", appleCode: status))
        case 21100...21199:
            if retryFlag == true {
                return .retry(
                    after: Delay.appleRetryable, reason: RetryReason(.appleRetryable, "\(detail) with the retry flag"))
            }
            return .terminal(TerminalReason(.receiptInvalid, "\(detail) without the retry flag", appleCode: status))
        default:
            // 21000, 21001, 21003 and unknown statuses.
            return .terminal(TerminalReason(.receiptInvalid, detail, appleCode: status))
        }
    }

    /// Apple's current page writes `is_retryable`, older docs `is-retryable`; the value may be
    /// a boolean or 0/1.
    static func retryFlag(_ object: [String: Any]) -> Bool? {
        for key in ["is_retryable", "is-retryable"] {
            if let flag = object[key] as? Bool { return flag }
            if let number = JSONBody.integer(object[key]) { return number != 0 }
        }
        return nil
    }
}
