public import AppStoreModels
public import Contracts

/// Which App Store environments a deployment accepts purchases from.
///
/// Verified records always carry the environment Apple signed, so consumers can tell sandbox
/// grants apart even where sandbox is accepted.
public struct EnvironmentPolicy: Sendable, Hashable {
    /// Production or Sandbox: where this deployment's real customers buy.
    public var deployment: AppStoreEnvironment
    /// App Review tests production builds against sandbox; refusing sandbox in production
    /// gets apps rejected, hence on by default. Off: sandbox data is `sandbox_not_allowed`.
    public var acceptSandboxInProduction: Bool
    /// Xcode and LocalTesting data carries no Apple signature at all; off (the default) it is
    /// `xcode_not_allowed`. Only for local development.
    public var acceptXcode: Bool

    public init(
        deployment: AppStoreEnvironment = .production, acceptSandboxInProduction: Bool = true, acceptXcode: Bool = false
    ) {
        self.deployment = deployment
        self.acceptSandboxInProduction = acceptSandboxInProduction
        self.acceptXcode = acceptXcode
    }

    /// nil when data from `environment` is accepted, else the refusal.
    public func refusal(for environment: AppStoreEnvironment) -> Rejection? {
        switch environment {
        case .xcode, .localTesting:
            return self.acceptXcode
                ? nil : Rejection(.xcodeNotAllowed, "\(environment) data is not signed by Apple and is not accepted")
        case .production:
            return self.deployment == .production
                ? nil : Rejection(.wrongEnvironment, "Production data in a \(self.deployment) deployment")
        case .sandbox:
            if self.deployment == .sandbox || self.acceptSandboxInProduction { return nil }
            return Rejection(.sandboxNotAllowed, "Sandbox data is not accepted by this Production deployment")
        default:
            return Rejection(.wrongEnvironment, "unknown environment '\(environment)'")
        }
    }

    /// Every environment whose data is accepted (one verifier each).
    public var acceptedEnvironments: [AppStoreEnvironment] {
        [.production, .sandbox, .xcode, .localTesting].filter { self.refusal(for: $0) == nil }
    }

    /// Where a bare transaction id or receipt is looked up first: production first, as Apple
    /// documents, unless this is a sandbox deployment.
    var firstLookupEnvironment: AppStoreEnvironment {
        self.deployment == .sandbox ? .sandbox : .production
    }
}
