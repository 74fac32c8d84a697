public import AppStore
import Foundation
public import Purchases

/// One app a deployment serves (issue 22 item 5, decision D57): what differs between a studio's
/// games. Everything else (roots, endpoints, the rate limit, timeouts, OCSP) is the
/// deployment's. From `IAP_APPS`, or the single app of `IAP_BUNDLE_ID` and the keys beside it.
public struct AppSettings: Sendable, Hashable {
    /// The App Store Server API key a stage calls Apple with for this app.
    public struct AppleKey: Sendable, Hashable {
        public var keyId: String
        public var issuerId: String
        public var privateKeyPath: String

        public init(keyId: String, issuerId: String, privateKeyPath: String) {
            self.keyId = keyId
            self.issuerId = issuerId
            self.privateKeyPath = privateKeyPath
        }
    }

    public var bundleId: String
    /// Required to verify this app's production notifications.
    public var appAppleId: Int64?
    public var environmentPolicy: EnvironmentPolicy
    /// Nil where the stage calls no Apple API.
    public var appleKey: AppleKey?
    /// Where this app's Apple calls are budgeted: nil for the one app of `IAP_BUNDLE_ID` (the
    /// gate's keys are those of a single-app deployment), the bundle id for an app of
    /// `IAP_APPS` (Apple's limits are per app, so each app gets its own timelines).
    public var gateScope: String?

    public init(
        bundleId: String, appAppleId: Int64? = nil, environmentPolicy: EnvironmentPolicy = EnvironmentPolicy(),
        appleKey: AppleKey? = nil, gateScope: String? = nil
    ) {
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environmentPolicy = environmentPolicy
        self.appleKey = appleKey
        self.gateScope = gateScope
    }
}
