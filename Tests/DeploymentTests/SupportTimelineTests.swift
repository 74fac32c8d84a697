import Foundation
import Redis
import TestSupport
import Testing

/// `iap support history <transactionId> --pipeline`: the real `iap` binary prints a transaction's
/// decisions from the audit index (D51) as a timeline, oldest first, and exits 3 for one it
/// knows nothing about. The entries are written as the state stage stores them.
@Suite(.timeLimit(.minutes(2)))
struct SupportTimelineTests {
    static func entry(_ stage: String, _ decision: String, at: String, _ extra: String) -> String {
        #"{"at":"2026-11-27T12:00:0\#(at).000Z","auditId":"\#(stage)-\#(decision)","bundleId":"com.example.game","decision":"\#(decision)","eventId":"evt-1","schema":"iap.audit.v1","stage":"\#(stage)"\#(extra)}"#
    }

    static func history(_ transactionId: String, redis: String) async throws -> (Int32, String) {
        try await Tools.run(
            CatalogCheckTests.binaries + "/iap",
            ["support", "history", transactionId, "--pipeline", "--bundle-id", "com.example.game"],
            environment: ["PATH": "/usr/bin:/bin", "REDIS_URL": redis], timeout: .seconds(60))
    }

    @Test func aTransactionsDecisionsPrintOldestFirst() async throws {
        try await withRedisDatabase { database in
            try await withClient(try database.configuration()) { client in
                let transaction = "iap:audit:transaction:{com.example.game|2000000100}"
                let delivery = "iap:audit:delivery:{com.example.game|e:evt-1}"
                let entries = [
                    (delivery, Self.entry("intake", "accepted", at: "1", #","userId":"alice""#)),
                    (
                        transaction,
                        Self.entry(
                            "verify", "verified", at: "2",
                            #","environment":"Production","transactionId":"2000000100","transactions":["2000000100"]"#)
                    ),
                    (
                        transaction,
                        Self.entry(
                            "match", "matched", at: "3",
                            #","matchedBy":"appAccountToken","transactionId":"2000000100","userId":"alice""#)
                    ),
                    (
                        transaction,
                        Self.entry(
                            "grant", "changed", at: "4",
                            #","effects":["grant"],"transactionId":"2000000100","userId":"alice""#
                        )
                    ),
                ]
                for (key, json) in entries.reversed() {
                    _ = try await client.send("HSET", .string(key), .string(String(json.prefix(60))), .string(json))
                }
            }
            let (code, output) = try await Self.history("2000000100", redis: database.url)
            #expect(code == 0, "\(output)")
            let lines = output.split(separator: "\n").map(String.init)
            #expect(lines.first == "transaction 2000000100 (com.example.game): 4 decision(s)", "\(output)")
            #expect(lines.dropFirst().map { $0.split(separator: " ")[1] } == ["intake", "verify", "match", "grant"])
            #expect(
                lines.last?.contains("changed") == true && lines.last?.contains("grant → alice") == true, "\(output)")
            let (unknown, said) = try await Self.history("2000000999", redis: database.url)
            #expect(unknown == 3 && said.contains("no decision about transaction 2000000999"), "\(said)")
        }
    }
}
