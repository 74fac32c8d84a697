import Hosting
import Settings
import Testing

@Suite(.timeLimit(.minutes(2))) struct ReplicaIdentityTests {
    func identity(_ process: String, _ environment: [String: String]) throws -> ReplicaIdentity {
        try HostSettings(process: process, reader: SettingsReader(environment: environment)).identity
    }

    @Test func defaultsToStageAndHostName() throws {
        #expect(
            try identity("verify", ["HOSTNAME": "verify-7d9f"])
                == ReplicaIdentity(clientId: "verify-verify-7d9f", groupInstanceId: nil))
    }

    @Test func staticMembershipUsesTheHostName() throws {
        #expect(
            try identity("grant", ["HOSTNAME": "grant-2", "IAP_STATIC_MEMBERSHIP": "true"]).groupInstanceId
                == "grant-grant-2")
    }

    @Test func explicitValuesWin() throws {
        let environment = [
            "HOSTNAME": "h", "IAP_CLIENT_ID": "c1", "IAP_GROUP_INSTANCE_ID": "i1", "IAP_STATIC_MEMBERSHIP": "true",
        ]
        #expect(try identity("match", environment) == ReplicaIdentity(clientId: "c1", groupInstanceId: "i1"))
    }
}
