internal import CHiredis

/// Facts about the linked hiredis, logged at start-up.
public enum Hiredis {
    /// The compiled-against hiredis version, e.g. `0.14.1`.
    public static var version: String { "\(HIREDIS_MAJOR).\(HIREDIS_MINOR).\(HIREDIS_PATCH)" }
}
