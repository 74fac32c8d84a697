public import Basics

/// Why a catalog file was refused. The message names the file, the line and the product, app or
/// field at fault, so `iap config check` can print it as it is.
public struct CatalogError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: OpenEnumeration {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The file could not be read or is not YAML of the catalog's shape.
        public static let unreadable = Code(rawValue: "unreadable")
        /// A field the catalog does not have (a typo would silently leave a product without access).
        public static let unknownField = Code(rawValue: "unknownField")
        /// A field a product or app cannot go without.
        public static let missingField = Code(rawValue: "missingField")
        /// An app or a product listed twice with the same type.
        public static let duplicate = Code(rawValue: "duplicate")
        /// One product id listed with two different types (App Store product ids are unique
        /// within a developer account, so this cannot be two products).
        public static let conflictingType = Code(rawValue: "conflictingType")
        /// A value out of its rule: an unknown type, a credit that is not a positive whole
        /// number, a consumable that unlocks access, an empty id.
        public static let invalidValue = Code(rawValue: "invalidValue")
    }

    public let code: Code
    public let message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String { "CatalogError.\(code): \(message)" }
}
