import Foundation

/// Mints Apple-shaped identifiers: 16-digit transaction and web order line item ids starting
/// with 2 ("2000000…"), 18-digit app transaction ids and 10-character order ids.
///
/// Counters start from the clock so ids from a restarted simulator (same state directory, same
/// Redis) don't repeat earlier runs' ids.
struct IdentifierGenerator: Sendable {
    private var transaction: UInt64
    private var webOrderLineItem: UInt64
    private var appTransaction: UInt64

    init(now: Date) {
        let milliseconds = UInt64(max(0, now.timeIntervalSince1970 * 1000)) % 1_000_000_000_000
        transaction = 2_000_000_000_000_000 + milliseconds * 100
        webOrderLineItem = 2_000_000_000_000_000 + milliseconds * 50
        appTransaction = 704_000_000_000_000_000 + milliseconds * 1000
    }

    mutating func nextTransactionId() -> String {
        transaction += 1
        return String(transaction)
    }

    mutating func nextWebOrderLineItemId() -> String {
        webOrderLineItem += 1
        return String(webOrderLineItem)
    }

    mutating func nextAppTransactionId() -> String {
        appTransaction += 1
        return String(appTransaction)
    }

    /// Apple's order ids look like "MQKQ7VX3TX": uppercase letters and digits.
    func nextOrderId() -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        return String((0..<10).map { _ in alphabet.randomElement() ?? "X" })
    }
}
