/// The stages a worker executable can run.
public enum StageName: String, Sendable, CaseIterable {
    case intake, verify, match, grant
}

/// Entry point of the four worker executables.
public enum WorkerMain {
    public static func run(_ stage: StageName) async {
        fatalError("\(stage) is not wired yet")
    }
}
