public import Basics

/// The reason codes of `iap.rejected` (`reason` in the record and the `reject_reason` header):
/// a contract other systems parse, so one list for every module that refuses records.
///
/// The runtime refuses with the first two itself (a record too large, a `schema` a stage does
/// not read); the rest come from the purchase rules, which map Apple's outcomes onto them.
public struct ReasonCode: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Not JSON, too large, a missing or mistyped field.
    public static let malformedEvent = Self(rawValue: "malformed_event")
    /// A `schema` the stage does not read.
    public static let unsupportedSchema = Self(rawValue: "unsupported_schema")
    public static let invalidSignature = Self(rawValue: "invalid_signature")
    public static let invalidCertificate = Self(rawValue: "invalid_certificate")
    public static let wrongBundle = Self(rawValue: "wrong_bundle")
    /// An event of an app the deployment does not serve (`IAP_BUNDLE_ID`, `IAP_APPS`; D57).
    public static let unknownApp = Self(rawValue: "unknown_app")
    public static let wrongEnvironment = Self(rawValue: "wrong_environment")
    public static let receiptInvalid = Self(rawValue: "receipt_invalid")
    public static let transactionNotFound = Self(rawValue: "transaction_not_found")
    public static let ownershipConflict = Self(rawValue: "ownership_conflict")
    public static let sandboxNotAllowed = Self(rawValue: "sandbox_not_allowed")
    public static let xcodeNotAllowed = Self(rawValue: "xcode_not_allowed")
}
