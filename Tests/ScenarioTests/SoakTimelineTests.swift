import Testing

@testable import LocalStack

extension ScenarioTests {
    /// What the soak report names as the cause of a repeated delivery.
    @Suite struct SoakTimelineTests {
        /// The killer and the faults note from tasks of their own, so a later note may carry an
        /// earlier time: the events are ordered by time, not by the order of the notes. A copy's
        /// cause is the first event after the copy it repeats: a worker killed just after it
        /// wrote a record, whose successor writes it again once the dead one's lock lapses.
        @Test func aCopysCauseIsTheFirstEventAfterTheCopyItRepeats() throws {
            var timeline = SoakTimeline()
            timeline.note("iap-grant killed", at: 10_000)
            timeline.note("Redis FLUSHALL", at: 30_000)
            timeline.note("redis-server killed", at: 20_000)

            let grant = try #require(timeline.between(9_400, and: 39_500))
            #expect(grant.what == "iap-grant killed")
            #expect(grant.after == .milliseconds(600))
            #expect(grant.before == .milliseconds(29_500))
            #expect(timeline.between(10_000, and: 25_000)?.what == "redis-server killed", "after, not at, the first")
            #expect(timeline.between(15_000, and: 30_000)?.what == "redis-server killed")
            #expect(timeline.between(20_500, and: 30_000)?.what == "Redis FLUSHALL", "at the copy counts")
            #expect(timeline.between(30_000, and: 40_000) == nil, "nothing between")
            #expect(timeline.between(0, and: 9_999) == nil, "nothing happened yet")
        }
    }
}
