import AppStoreModels
import Testing

@testable import ReadAPI

@Suite struct RenderCacheTests {
    static let render = RenderCache.Render(body: Array("{}".utf8), etag: "\"e\"")
    static func at(_ milliseconds: Int64) -> Timestamp { Timestamp(millisecondsSince1970: milliseconds) }

    @Test func anAnswerIsKeptForTheSameStoredBytesUntilItsEnd() {
        let cache = RenderCache(capacity: 10)
        cache.keep(Self.render, for: "a|u", stored: [1, 2, 3], validUntil: Self.at(1_000))
        #expect(cache.render(for: "a|u", stored: [1, 2, 3], at: Self.at(999))?.etag == "\"e\"")
        #expect(cache.render(for: "a|u", stored: [1, 2, 4], at: Self.at(10)) == nil, "another record")
        #expect(cache.render(for: "a|u", stored: [1, 2, 3], at: Self.at(1_000)) == nil, "past its end")
        #expect(cache.render(for: "b|u", stored: [1, 2, 3], at: Self.at(10)) == nil, "another customer")
        cache.keep(Self.render, for: "c|u", stored: [9], validUntil: nil)
        #expect(cache.render(for: "c|u", stored: [9], at: Self.at(.max)) != nil, "no end ahead")
    }

    @Test func theCacheStaysWithinItsCapacityAndKeepsWhatIsRead() {
        let cache = RenderCache(capacity: 100)
        cache.keep(Self.render, for: "hot", stored: [0], validUntil: nil)
        for index in 0..<1_000 {
            cache.keep(Self.render, for: "k\(index)", stored: [1], validUntil: nil)
            #expect(cache.count <= 100)
            #expect(cache.render(for: "hot", stored: [0], at: Self.at(0)) != nil, "read often, kept")
        }
        #expect(cache.render(for: "k0", stored: [1], at: Self.at(0)) == nil, "read never, dropped")
    }

    @Test func noCapacityKeepsNothing() {
        let cache = RenderCache(capacity: 0)
        cache.keep(Self.render, for: "a|u", stored: [1], validUntil: nil)
        #expect(cache.render(for: "a|u", stored: [1], at: Self.at(0)) == nil)
        #expect(cache.count == 0)
    }
}
