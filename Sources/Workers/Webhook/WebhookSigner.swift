import Crypto
import Foundation

/// Signs webhook bodies so receivers can tell our deliveries from forgeries and replays:
/// `X-IAP-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>` (the scheme
/// Stripe's receivers already know how to check: the timestamp inside the MAC bounds replays).
public struct WebhookSigner: Sendable {
    public static let header = "X-IAP-Signature"
    private let key: SymmetricKey

    public init(secret: String) {
        key = SymmetricKey(data: Data(secret.utf8))
    }

    public func signature(for body: [UInt8], at timestamp: Int64) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Self.signedContent(body, at: timestamp), using: key)
        return "t=\(timestamp),v1=" + mac.map { String(format: "%02x", $0) }.joined()
    }

    /// What a receiver does: recompute and compare in constant time, within `tolerance`.
    public func verify(_ header: String, body: [UInt8], now: Int64, tolerance: Int64 = 300) -> Bool {
        let fields = Dictionary(
            header.split(separator: ",").compactMap { part -> (String, String)? in
                let pair = part.split(separator: "=", maxSplits: 1)
                return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
            }, uniquingKeysWith: { first, _ in first })
        guard let timestampText = fields["t"], let timestamp = Int64(timestampText), abs(now - timestamp) <= tolerance,
            let given = fields["v1"].flatMap(Self.bytes(hex:))
        else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(
            given, authenticating: Self.signedContent(body, at: timestamp), using: key)
    }

    /// `"<t>.<body>"`: the timestamp is inside the MAC, so a replayed body cannot carry a new one.
    private static func signedContent(_ body: [UInt8], at timestamp: Int64) -> [UInt8] {
        Array("\(timestamp).".utf8) + body
    }

    private static func bytes(hex: String) -> [UInt8]? {
        guard hex.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}
