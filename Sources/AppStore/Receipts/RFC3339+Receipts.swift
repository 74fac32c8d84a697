import AppStoreModels
import Foundation

extension RFC3339 {
    /// A receipt date as `Date`, keeping every fraction digit.
    static func date(from text: String) -> Date? {
        guard let instant = self.parse(text, .receipt) else { return nil }
        var fraction = 0.0
        var scale = 0.1
        for digit in instant.fractionDigits {
            fraction += Double(digit) * scale
            scale /= 10
        }
        return Date(timeIntervalSince1970: Double(instant.secondsSince1970) + fraction)
    }
}
