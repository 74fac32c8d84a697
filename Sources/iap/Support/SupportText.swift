import AppStoreModels
import Contracts
import Customers
import Foundation
import SupportTools

/// The human-readable form of the support reports: one line per transaction, the fields an
/// on-call engineer compares with the customer's email (`--json` has everything).
enum SupportText {
    static func order(_ report: OrderReport) -> String {
        guard report.found else { return "order \(report.orderId): Apple knows no such order (\(report.environment))" }
        var lines = ["order \(report.orderId) (\(report.environment)): \(report.transactions.count) transaction(s)"]
        for item in report.transactions {
            lines.append("  " + transaction(item.transaction, item.verification))
            lines.append("    pipeline: " + grant(item.grant))
        }
        for event in report.republished ?? [] {
            lines.append(
                "  republished \(event.transactionId) for user \(event.userId) as event \(event.eventId) → \(event.topic)[\(event.partition)]@\(event.offset)"
            )
        }
        return lines.joined(separator: "\n")
    }

    static func transactions(_ what: String, _ report: TransactionListReport) -> String {
        var lines = [
            "\(what) of \(report.transactionId)'s customer (\(report.environment), \(report.pages) page(s)): \(report.transactions.count)"
        ]
        for item in report.transactions { lines.append("  " + transaction(item.transaction, item.verification)) }
        return lines.joined(separator: "\n")
    }

    static func statuses(_ report: SubscriptionStatusReport) -> String {
        var lines = ["subscriptions of \(report.transactionId)'s customer (\(report.environment))"]
        for group in report.groups {
            lines.append("  group \(group.subscriptionGroupIdentifier ?? "-")")
            for subscription in group.subscriptions {
                lines.append(
                    "    \(subscription.originalTransactionId ?? "-"): \(subscription.status ?? "-")")
                if let checked = subscription.transaction {
                    lines.append("      last " + transaction(checked.transaction, checked.verification))
                }
                if let renewal = subscription.renewal {
                    let info = renewal.renewalInfo
                    lines.append(
                        "      renewal: auto-renew \(info?.autoRenewStatus.map { $0.rawValue == 1 ? "on" : "off" } ?? "-"), "
                            + "next \(info?.autoRenewProductId ?? "-"), billing retry \(info?.isInBillingRetryPeriod.map { "\($0)" } ?? "-"), "
                            + "grace until \(info?.gracePeriodExpiresDate?.iso8601 ?? "-") [\(verification(renewal.verification))]"
                    )
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The pipeline's history of a transaction: one line per decision, oldest first.
    static func timeline(_ history: TransactionHistory) -> String {
        var lines = ["transaction \(history.transactionId) (\(history.bundleId)): \(history.entries.count) decision(s)"]
        for entry in history.entries {
            let stage = entry.stage.padding(toLength: 6, withPad: " ", startingAt: 0)
            let decision = entry.decision.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)
            lines.append("  \(entry.at.iso8601)  \(stage)  \(decision)  " + timelineWords(entry))
        }
        return lines.joined(separator: "\n")
    }

    private static func timelineWords(_ entry: AuditEntry) -> String {
        var words: [String] = []
        if let eventId = entry.eventId { words.append("event \(eventId)") }
        if let uuid = entry.notificationUUID { words.append("notification \(uuid)") }
        if let effects = entry.effects { words.append(effects.map(\.rawValue).joined(separator: ", ")) }
        if let user = entry.userId { words.append(entry.decision == .accepted ? "(user hint \(user))" : "→ \(user)") }
        if let rule = entry.matchedBy { words.append("by \(rule)") }
        if let order = entry.orderId { words.append("order \(order)") }
        if let environment = entry.environment { words.append("\(environment)") }
        if let transactions = entry.transactions, transactions.count > 1 {
            words.append("transactions \(transactions.joined(separator: ", "))")
        }
        if let warnings = entry.warnings {
            words.append("warnings: \(warnings.map(\.rawValue).joined(separator: ", "))")
        }
        if let reason = entry.reason { words.append("— \(reason)") }
        if let detail = entry.detail { words.append("(\(detail))") }
        return words.joined(separator: " ")
    }

    private static func transaction(_ payload: JWSTransactionDecodedPayload?, _ check: Verification) -> String {
        guard let payload else { return "undecodable [\(verification(check))]" }
        var text =
            "\(payload.transactionId ?? "-") (original \(payload.originalTransactionId ?? "-")) \(payload.productId ?? "-")"
            + " bought \(payload.purchaseDate?.iso8601 ?? "-")"
        if let expires = payload.expiresDate { text += " expires \(expires.iso8601)" }
        if let revoked = payload.revocationDate { text += " REVOKED \(revoked.iso8601)" }
        return text + " [\(verification(check))]"
    }

    private static func grant(_ view: GrantView?) -> String {
        guard let view, view.presence == .seen else { return "never seen by grant" }
        var text =
            "\(view.status ?? "-") for user \(view.userId ?? "-"), product \(view.entitledProductId ?? "-")"
        if let expires = view.expiresDate { text += ", until \(expires.iso8601)" }
        if !view.revokedTransactionIds.isEmpty {
            text += ", revoked \(view.revokedTransactionIds.joined(separator: ", "))"
        }
        return text
    }

    private static func verification(_ check: Verification) -> String {
        check.detail.map { "\(check.status.rawValue): \($0)" } ?? check.status.rawValue
    }
}
