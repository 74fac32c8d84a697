import AppStore

/// The local stand-in for Apple (issue 3 builds it out).
public enum AppStoreSimulatorInfo {
    public static let name = "iap App Store simulator"
}
