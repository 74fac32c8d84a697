import Pipeline
import Redis
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct DelayQueueTests {
    @Test func notClaimableBeforeDue() async throws {
        try await withRedisClient { _, client throws in
            let queue = DelayQueue(client: client, name: "verify")
            #expect(try await queue.schedule(id: "later", payload: [1], after: .seconds(3600)))
            #expect(try await queue.claimDue(limit: 10, lease: .seconds(60)).isEmpty)
            let wait = try #require(try await queue.nextDueIn())
            #expect(wait > .seconds(3500) && wait <= .seconds(3600))
            #expect(try await queue.count() == 1)
        }
    }

    @Test func notBeforeWinsOverAShorterDelay() async throws {
        try await withRedisClient { _, client throws in
            let queue = DelayQueue(client: client, name: "verify")
            let nowMilliseconds = try await serverMicroseconds(client) / 1000
            try await queue.schedule(
                id: "retry-after", payload: [2], after: .zero, notBefore: nowMilliseconds + 3_600_000)
            try await queue.schedule(id: "past", payload: [3], after: .zero, notBefore: nowMilliseconds - 1000)
            let claimed = try await queue.claimDue(limit: 10, lease: .seconds(60))
            #expect(claimed == [DelayedItem(id: "past", payload: [3])])
        }
    }

    @Test func schedulingIsIdempotentPerID() async throws {
        try await withRedisClient { _, client throws in
            let queue = DelayQueue(client: client, name: "match")
            #expect(try await queue.schedule(id: "x", payload: [1], after: .zero))
            #expect(try await queue.schedule(id: "x", payload: [9], after: .seconds(3600)) == false)
            #expect(try await queue.claimDue(limit: 10, lease: .seconds(60)).map(\.payload) == [[1]])
        }
    }

    @Test func bringingForwardMovesAScheduledItemEarlierNeverLater() async throws {
        try await withRedisClient { _, client throws in
            let queue = DelayQueue(client: client, name: "match")
            let now = try await serverMicroseconds(client) / 1000
            #expect(try await queue.schedule(id: "late", payload: [1], after: .seconds(3600), notBefore: 0))
            #expect(try await queue.schedule(id: "due", payload: [2], after: .zero, notBefore: 0))
            #expect(
                try await queue.schedule(id: "late", payload: [9], notBefore: now, ifScheduled: .bringForward) == false)
            #expect(
                try await queue.schedule(
                    id: "due", payload: [9], notBefore: now + 3_600_000, ifScheduled: .bringForward) == false)
            let claimed = try await queue.claimDue(limit: 10, lease: .seconds(60))
            #expect(Set(claimed) == [DelayedItem(id: "late", payload: [1]), DelayedItem(id: "due", payload: [2])])
        }
    }

    @Test func eachItemIsClaimedExactlyOnceByConcurrentClaimers() async throws {
        try await withTwoClients { first, second in
            let ids = (0..<500).map { "item-\($0)" }
            let scheduler = DelayQueue(client: first, name: "race")
            for chunk in stride(from: 0, to: ids.count, by: 50) {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for id in ids[chunk..<min(chunk + 50, ids.count)] {
                        group.addTask { try await scheduler.schedule(id: id, payload: Array(id.utf8), after: .zero) }
                    }
                    try await group.waitForAll()
                }
            }
            @Sendable func drain(_ client: RedisClient) async throws -> [String] {
                let queue = DelayQueue(client: client, name: "race")
                var claimed: [String] = []
                while true {
                    let batch = try await queue.claimDue(limit: 7, lease: .seconds(3600))
                    if batch.isEmpty { return claimed }
                    for item in batch {
                        #expect(item.payload == Array(item.id.utf8))
                    }
                    claimed += batch.map(\.id)
                }
            }
            async let a = drain(first)
            async let b = drain(second)
            let (fromFirst, fromSecond) = try await (a, b)
            #expect(Set(fromFirst).isDisjoint(with: fromSecond))
            #expect(Set(fromFirst).union(fromSecond) == Set(ids))
            #expect(fromFirst.count + fromSecond.count == ids.count)
            #expect(try await scheduler.count() == 500)
            try await scheduler.acknowledge(fromFirst + fromSecond)
            #expect(try await scheduler.count() == 0)
            #expect(try await scheduler.nextDueIn() == nil)
        }
    }

    @Test func unacknowledgedItemsComeBackAfterTheLease() async throws {
        try await withTwoClients { first, second in
            let crashed = DelayQueue(client: first, name: "lease")
            let survivor = DelayQueue(client: second, name: "lease")
            // Two claims by a claimer that then "crashes": a long lease shows the item stays
            // hidden while leased, a short one shows it comes back once the lease ends. No
            // assumption about how fast this machine runs the steps in between.
            try await crashed.schedule(id: "held", payload: [7], after: .zero)
            #expect(try await crashed.claimDue(limit: 10, lease: .seconds(120)).map(\.id) == ["held"])
            try await crashed.schedule(id: "job", payload: [42], after: .zero)
            #expect(try await crashed.claimDue(limit: 10, lease: .milliseconds(300)).map(\.id) == ["job"])

            let reclaimed = try await eventually("the short-leased item is claimable again") { () -> [DelayedItem]? in
                let items = try await survivor.claimDue(limit: 10, lease: .seconds(60))
                return items.isEmpty ? nil : items
            }
            #expect(
                reclaimed == [DelayedItem(id: "job", payload: [42])], "the held item never came back")
            try await survivor.acknowledge(["job"])
            #expect(try await survivor.count() == 1)
        }
    }

    @Test func claimLimitIsCapped() async throws {
        try await withRedisClient { _, client throws in
            let queue = DelayQueue(client: client, name: "cap")
            let commands: [[RedisValue]] = (0..<(DelayQueue.maximumClaim + 5)).flatMap { index -> [[RedisValue]] in
                [
                    ["ZADD", "iap:delay:{cap}:due", 0, .string("i\(index)")],
                    ["HSET", "iap:delay:{cap}:payloads", .string("i\(index)"), "p"],
                ]
            }
            _ = try await client.pipeline(commands)
            #expect(try await queue.claimDue(limit: 1_000_000, lease: .seconds(60)).count == DelayQueue.maximumClaim)
            #expect(try await queue.claimDue(limit: 1_000_000, lease: .seconds(60)).count == 5)
        }
    }
}
