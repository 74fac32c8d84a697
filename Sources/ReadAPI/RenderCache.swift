import AppStoreModels
import Synchronization

/// Recent customer answers, so that reading an unchanged customer again costs the Redis read
/// and a comparison of bytes instead of decoding the record, rendering the view, encoding it
/// and hashing its `ETag` (together about three quarters of the API's own CPU per read).
///
/// An answer is served again only while the stored record is byte for byte the one it was
/// rendered from (the state stage saves a new record with every change) and before the first
/// moment its view changes by time alone (``CustomerRecord/viewChanges(after:)``: an expiry or
/// a grace period's end). The catalog is fixed for the process's life. So a kept answer is
/// always the one a fresh render would give.
///
/// Bounded at `capacity` entries in two generations: a lookup that finds an entry in the older
/// one moves it to the newer, and when the newer holds half the capacity the older is dropped,
/// an approximation of least-recently-used at constant cost per read.
final class RenderCache: Sendable {
    struct Render: Sendable {
        var body: [UInt8]
        var etag: String
    }

    private struct Entry {
        var stored: [UInt8]
        var render: Render
        var validUntil: Timestamp?
    }

    private struct Generations {
        var newer: [String: Entry] = [:]
        var older: [String: Entry] = [:]
    }

    let capacity: Int
    private let generations = Mutex(Generations())

    /// - Parameter capacity: entries kept at most; 0 keeps none.
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The answer rendered from exactly `stored`, if kept and still valid at `now`.
    func render(for key: String, stored: [UInt8], at now: Timestamp) -> Render? {
        guard capacity > 0 else { return nil }
        return generations.withLock { generations in
            let entry: Entry
            if let newer = generations.newer[key] {
                entry = newer
            } else if let older = generations.older.removeValue(forKey: key) {
                entry = older
                insert(older, for: key, into: &generations)
            } else {
                return nil
            }
            guard entry.stored == stored, entry.validUntil.map({ now < $0 }) ?? true else { return nil }
            return entry.render
        }
    }

    /// Keeps `render`, made from `stored`, until `validUntil` (nil: until the record changes).
    func keep(_ render: Render, for key: String, stored: [UInt8], validUntil: Timestamp?) {
        guard capacity > 0 else { return }
        generations.withLock { generations in
            insert(Entry(stored: stored, render: render, validUntil: validUntil), for: key, into: &generations)
        }
    }

    /// Entries held now, both generations.
    var count: Int { generations.withLock { $0.newer.count + $0.older.count } }

    private func insert(_ entry: Entry, for key: String, into generations: inout Generations) {
        if generations.newer[key] == nil, generations.newer.count >= max(capacity / 2, 1) {
            generations.older = generations.newer
            generations.newer = [:]
            generations.older.removeValue(forKey: key)
        }
        generations.newer[key] = entry
    }
}
