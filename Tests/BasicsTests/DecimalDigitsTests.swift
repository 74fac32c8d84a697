import Basics
import Testing

/// The digits are written from the right into a fixed buffer; `String(value)` is the reference
/// at both ends of `Int64`, around every power of ten and for the sign.
@Suite struct DecimalDigitsTests {
    @Test func digitsAreWhatStringWrites() {
        var values: [Int64] = [0, 1, -1, .max, .min, .max - 1, .min + 1]
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -(power - 1), -power, -(power + 1)]
        }
        for value in values {
            #expect(withDecimalDigits(of: value) { Array($0) } == Array(String(value).utf8), "\(value)")
        }
    }
}
