import Foundation

/// Loose inspection of response bodies whose exact model does not matter to the caller.
enum JSONBody {
    static func object(_ body: [UInt8]) -> [String: Any]? {
        guard let first = body.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }), first == UInt8(ascii: "{")
        else {
            return nil
        }
        return (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    }

    static func isObject(_ body: [UInt8]) -> Bool { self.object(body) != nil }

    /// A JSON number with an integral value.
    static func integer(_ value: Any?) -> Int64? {
        guard let number = value as? NSNumber else { return nil }
        let double = number.doubleValue
        guard double.rounded() == double, abs(double) < 9.0e18 else { return nil }
        return number.int64Value
    }
}
