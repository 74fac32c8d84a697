import Testing

@testable import Traces

/// Span ids come from a counter through SplitMix64's bijective finalizer instead of a system
/// call each: they must still never repeat in a process, also when drawn concurrently.
@Suite struct TraceIDGeneratorTests {
    @Test func idsNeverRepeatAcrossConcurrentDraws() async {
        let generator = TraceIDGenerator(seed: 0)
        let drawn = await withTaskGroup(of: [UInt64].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<20_000).map { _ in generator.next() } }
            }
            var all: [UInt64] = []
            for await ids in group { all += ids }
            return all
        }
        #expect(drawn.count == 160_000)
        #expect(Set(drawn).count == drawn.count)
    }

    /// Consecutive ids look nothing alike (a bare counter would differ in its low bits only),
    /// so ids stay usable where a backend samples or shards on their bits.
    @Test func consecutiveIdsDifferInAboutHalfTheirBits() {
        let generator = TraceIDGenerator(seed: 1)
        var previous = generator.next()
        var differing = 0
        for _ in 0..<1_000 {
            let next = generator.next()
            differing += (previous ^ next).nonzeroBitCount
            previous = next
        }
        #expect((28_000...36_000).contains(differing))  // 32 bits on average
    }

    @Test func twoGeneratorsStartApart() {
        #expect(TraceIDGenerator().next() != TraceIDGenerator().next())
    }
}
