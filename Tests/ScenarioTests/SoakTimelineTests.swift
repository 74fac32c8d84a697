import Testing

@testable import LocalStack

extension ScenarioTests {
    /// What the soak report names as the last thing before a repeated delivery.
    @Suite struct SoakTimelineTests {
        /// The killer and the faults note from tasks of their own, so a later note may carry an
        /// earlier time: the last event before a copy is by time, not by the order of the notes.
        @Test func theLastEventBeforeACopyIsByTimeNotByNote() throws {
            var timeline = SoakTimeline()
            timeline.note("iap-grant killed", at: 10_000)
            timeline.note("Redis FLUSHALL", at: 30_000)
            timeline.note("redis-server killed", at: 20_000)

            #expect(timeline.last(before: 9_999) == nil, "nothing happened yet")
            let copy = try #require(timeline.last(before: 25_500))
            #expect(copy.what == "redis-server killed")
            #expect(copy.ago == .milliseconds(5_500))
            #expect(timeline.last(before: 30_000)?.what == "Redis FLUSHALL")
            #expect(timeline.last(before: 15_000)?.what == "iap-grant killed")
        }
    }
}
