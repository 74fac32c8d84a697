public import Basics

/// The App Store environment that signed a payload or that a request goes to.
public struct AppStoreEnvironment: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let production = AppStoreEnvironment(rawValue: "Production")
    public static let sandbox = AppStoreEnvironment(rawValue: "Sandbox")
    /// StoreKit testing in Xcode: signed by a local key, never by Apple.
    public static let xcode = AppStoreEnvironment(rawValue: "Xcode")
    /// StoreKit testing against a local server: not signed by Apple either.
    public static let localTesting = AppStoreEnvironment(rawValue: "LocalTesting")

    /// Whether data from this environment carries no Apple signature at all.
    public var isUnsignedTestEnvironment: Bool { self == .xcode || self == .localTesting }
}
