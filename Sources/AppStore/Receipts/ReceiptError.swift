public import Basics

/// Why a receipt could not be decoded. Decoding claims no trust: a receipt that decodes is
/// only a source of ids to look up with Apple.
public struct ReceiptError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: OpenEnumeration {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let invalidBase64 = Code(rawValue: "INVALID_BASE64")
        /// Not a PKCS#7 SignedData with the attribute set Apple puts in app receipts.
        public static let invalidStructure = Code(rawValue: "INVALID_STRUCTURE")
        /// Not an old-style plist with a `purchase-info` entry.
        public static let invalidTransactionReceipt = Code(rawValue: "INVALID_TRANSACTION_RECEIPT")
        public static let tooLarge = Code(rawValue: "TOO_LARGE")
    }

    public var code: Code
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }
    public var description: String { "\(self.code.rawValue): \(self.reason)" }
}
