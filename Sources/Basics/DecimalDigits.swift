/// `value` in decimal ASCII (a leading `-` when negative), written into a temporary buffer for
/// `body`: the JSON writer's integers and Redis' request lengths and integer arguments. About
/// three times as fast as `String(value).utf8`, which both wrote before (session 22), and no
/// `String` made.
@inlinable
public func withDecimalDigits<Result>(of value: Int64, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows
    -> Result
{
    try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
        // The magnitude as UInt64, so Int64.min has one too.
        var magnitude = value.magnitude
        var start = digits.count
        repeat {
            start -= 1
            digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        } while magnitude != 0
        if value < 0 {
            start -= 1
            digits[start] = UInt8(ascii: "-")
        }
        return try body(UnsafeBufferPointer(rebasing: digits[start...]))
    }
}
