/// The stages a worker executable can run (their names in the pipeline file).
public enum StageName: String, Sendable, CaseIterable {
    case intake, verify, match, grant

    /// The executable's name, as in docs/architecture.md.
    public var executable: String { "iap-\(rawValue)" }
}
