import Crypto
import Foundation
import Testing

@testable import AppStore

/// The cache hashes only each certificate's length and tail (where its signature is); a chain
/// that differs anywhere else must still be a different entry, never a hit.
@Suite struct ChainCacheTests {
    @Test func chainsWithTheSameTailsAreStillDifferentEntries() {
        let cache = ChainCache()
        let tail = String(repeating: "S", count: 64)
        let stored = ChainCache.Key(leaf: "MIIB-leaf-one" + tail, intermediate: "MIIC-intermediate" + tail)
        let forged = ChainCache.Key(leaf: "MIIB-leaf-two" + tail, intermediate: "MIIC-intermediate" + tail)
        #expect(stored.hashValue == forged.hashValue)  // the premise: only the tails are hashed
        #expect(stored != forged)

        let key = P256.Signing.PrivateKey().publicKey
        let now = Date()
        cache.store(
            ChainCache.Entry(
                publicKey: key, validFrom: now.addingTimeInterval(-60), validUntil: now.addingTimeInterval(60),
                onlineCheckedUntil: nil),
            for: stored, now: now)
        #expect(
            cache.publicKey(for: stored, validationTime: now, online: false, now: now)?.rawRepresentation
                == key.rawRepresentation)
        #expect(cache.publicKey(for: forged, validationTime: now, online: false, now: now) == nil)
    }
}
