import Testing
import Topology

@Suite(.timeLimit(.minutes(2))) struct StageNameTests {
    @Test func stagesMatchThePipelineFile() {
        #expect(StageName.allCases.map(\.rawValue) == ["intake", "verify", "match", "grant", "state", "confirm"])
        #expect(
            StageName.allCases.map(\.executable) == [
                "iap-intake", "iap-verify", "iap-match", "iap-grant", "iap-state", "iap-confirm",
            ])
    }
}
