/// Keeps, per purchase (originalTransactionId), only its latest record.
///
/// A subscription's receipt lists every renewal; the latest one carries the state grant acts
/// on, so looking up (or forwarding) the older ones only spends Apple's rate limit.
enum LatestPerPurchase {
    /// The latest record (by `date`, later position winning ties) of each `purchase` key, in the
    /// order the keys first appear.
    static func select<Record>(_ records: [Record], purchase: (Record) -> String, date: (Record) -> Int64?) -> [Record]
    {
        var order: [String] = []
        var latest: [String: (date: Int64, record: Record)] = [:]
        for record in records {
            let key = purchase(record)
            let recordDate = date(record) ?? .min
            if let current = latest[key] {
                if recordDate >= current.date { latest[key] = (recordDate, record) }
            } else {
                order.append(key)
                latest[key] = (recordDate, record)
            }
        }
        return order.compactMap { latest[$0]?.record }
    }
}
