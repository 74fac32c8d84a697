/// The stages a worker executable can run (their names in the pipeline file).
public enum StageName: String, Sendable, CaseIterable {
    case intake, verify, match, grant
    /// Optional webhook delivery of entitlement changes, run by `iap-grant --webhook`.
    case webhook

    /// The executable's name, as in docs/architecture.md.
    public var executable: String { self == .webhook ? "iap-grant" : "iap-\(rawValue)" }
}
