/// The stages a worker executable can run (their names in the pipeline file): what code asks
/// the pipeline file for (``PipelineFile/stage(_:)``), so a misspelt stage fails to compile
/// instead of failing at start-up.
public enum StageName: String, Sendable, CaseIterable {
    case intake, verify, match, grant
    /// The customer state (issue 21, D49): `iap.entitlements` folded per customer into `iap.customers`.
    case state
    /// Tells Apple what was granted (issue 22, D55): Finish Transaction, Set App Account Token.
    case confirm

    /// The executable's name, as in docs/architecture.md.
    public var executable: String { "iap-\(rawValue)" }
}
