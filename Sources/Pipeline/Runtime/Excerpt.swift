/// Bounded quotes of input in what the runtime writes about a record: reject records, dead
/// letter and retry headers, log lines.
///
/// Refusal details quote the offending value ("appAccountToken '…' is not a UUID"), so without
/// a bound one oversized field becomes a reject record and a log line of its own size: a cheap
/// way to bloat `iap.rejected` and the logs. The excerpt keeps the start, whole characters
/// only, and says how large the original was.
public enum Excerpt {
    /// Bytes of UTF-8 kept from a detail, a retry reason or a logged value.
    public static let detailLimit = 1024

    /// `text` itself when it fits in `limit` bytes of UTF-8, else its longest prefix of whole
    /// characters that fits, followed by `…(<size> bytes)`.
    public static func of(_ text: String, limit: Int = detailLimit) -> String {
        let size = text.utf8.count
        guard size > limit else { return text }
        var kept = 0
        var end = text.startIndex
        for index in text.indices {
            let next = text.index(after: index)
            let width = text.utf8.distance(from: index, to: next)
            guard kept + width <= limit else { break }
            kept += width
            end = next
        }
        return "\(text[..<end])…(\(size) bytes)"
    }
}
