import Testing
import Workers

@Suite(.timeLimit(.minutes(2))) struct StageNameTests {
    @Test func stagesMatchThePipelineFile() {
        #expect(StageName.allCases.map(\.rawValue) == ["intake", "verify", "match", "grant", "webhook"])
        #expect(StageName.webhook.executable == "iap-grant")
    }
}
