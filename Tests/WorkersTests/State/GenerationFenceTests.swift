import Pipeline
import Purchases
import Redis
import TestSupport
import Testing
import WorkerCommon

/// Between a Redis loss and the generation watch's next look, a worker must not take a missing
/// binding or state for a first sighting (decision D35): the stores read the stage's marker in
/// the same round trip and throw `StateLost` when it is gone or another one.
@Suite(.timeLimit(.minutes(2))) struct GenerationFenceTests {
    /// A fence armed with the marker a recovered worker would hold.
    static func armedFence(_ client: RedisClient, stage: String) async throws -> GenerationFence {
        let fence = GenerationFence(generation: StateGeneration(client: client, stage: stage))
        fence.arm(try await fence.generation.establish())
        return fence
    }

    @Test func aMissingBindingAfterALossIsNotAFirstSighting() async throws {
        // A server of its own: FLUSHALL empties every database of the server.
        try await withPrivateRedisClient { _, client throws in
            let fence = try await Self.armedFence(client, stage: "match")
            let store = RedisOwnershipStore(client: client, fence: fence)
            #expect(try await store.owner(originalTransactionId: "100") == nil, "a real first sighting")
            #expect(try await store.bind(originalTransactionId: "100", userId: "u-1") == "u-1")

            _ = try await client.send("FLUSHALL")
            await #expect(throws: StateLost.self, "the binding may have been lost") {
                try await store.owner(originalTransactionId: "100")
            }
            await #expect(throws: StateLost.self, "a bind into an emptied Redis") {
                try await store.bind(originalTransactionId: "101", userId: "u-2")
            }
        }
    }

    @Test func aMissingStateAfterALossIsNotAFirstSighting() async throws {
        // A server of its own: FLUSHALL empties every database of the server.
        try await withPrivateRedisClient { _, client throws in
            let fence = try await Self.armedFence(client, stage: "grant")
            let store = RedisEntitlementStateStore(client: client, fence: fence)
            let state = StateFixtures.entitlement()
            #expect(try await store.state(originalTransactionId: state.originalTransactionId) == nil)
            try await store.save(state)

            _ = try await client.send("FLUSHALL")
            await #expect(throws: StateLost.self) {
                try await store.state(originalTransactionId: state.originalTransactionId)
            }
        }
    }

    /// Another replica noticed first and rebuilt: the marker is back, but not the one this worker
    /// started under. Values present are read as they are (rebuilt or written since).
    @Test func aMarkerFromAnotherRebuildStopsTheWorkerToo() async throws {
        // A server of its own: FLUSHALL empties every database of the server.
        try await withPrivateRedisClient { _, client throws in
            let fence = try await Self.armedFence(client, stage: "match")
            let store = RedisOwnershipStore(client: client, fence: fence)
            _ = try await store.bind(originalTransactionId: "100", userId: "u-1")
            _ = try await client.send("FLUSHALL")
            _ = try await StateGeneration(client: client, stage: "match").establish()
            _ = try await RedisOwnershipStore(client: client).bind(originalTransactionId: "100", userId: "u-1")

            #expect(try await store.owner(originalTransactionId: "100") == "u-1")
            await #expect(throws: StateLost.self) { try await store.owner(originalTransactionId: "200") }
        }
    }

    @Test func aFenceNotArmedYetRefusesToDecide() async throws {
        try await withRedisClient { _, client throws in
            let fence = GenerationFence(generation: StateGeneration(client: client, stage: "match"))
            _ = try await fence.generation.establish()
            let store = RedisOwnershipStore(client: client, fence: fence)
            await #expect(throws: StateLost.self) { try await store.owner(originalTransactionId: "100") }
        }
    }
}
