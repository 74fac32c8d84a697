import Testing
import Pipeline

@Suite(.timeLimit(.minutes(2))) struct ReplicaIdentityTests {
    @Test func defaultsToStageAndHostName() {
        let identity = ReplicaIdentity.fromEnvironment(stage: "verify", environment: ["HOSTNAME": "verify-7d9f"])
        #expect(identity == ReplicaIdentity(clientId: "verify-verify-7d9f", groupInstanceId: nil))
    }

    @Test func staticMembershipUsesTheHostName() {
        let identity = ReplicaIdentity.fromEnvironment(stage: "grant", environment: ["HOSTNAME": "grant-2", "IAP_STATIC_MEMBERSHIP": "true"])
        #expect(identity.groupInstanceId == "grant-grant-2")
    }

    @Test func explicitValuesWin() {
        let identity = ReplicaIdentity.fromEnvironment(
            stage: "match", environment: ["HOSTNAME": "h", "IAP_CLIENT_ID": "c1", "IAP_GROUP_INSTANCE_ID": "i1", "IAP_STATIC_MEMBERSHIP": "true"]
        )
        #expect(identity == ReplicaIdentity(clientId: "c1", groupInstanceId: "i1"))
    }
}
