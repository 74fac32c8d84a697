import Basics
import Testing

@Suite struct DurationUnitsTests {
    @Test func secondsAreFractional() {
        #expect(Duration.milliseconds(1500).seconds == 1.5)
        #expect(Duration.seconds(-2).seconds == -2)
        #expect(Duration.zero.seconds == 0)
    }

    @Test func nanosecondsTruncateAndSaturate() {
        #expect(Duration.milliseconds(3).nanoseconds == 3_000_000)
        #expect(Duration(secondsComponent: 1, attosecondsComponent: 999_999_999).nanoseconds == 1_000_000_000)
        #expect(Duration(secondsComponent: -1, attosecondsComponent: -999_999_999).nanoseconds == -1_000_000_000)
        #expect(Duration.seconds(Int64.max).nanoseconds == .max)
        #expect(Duration.seconds(Int64.min).nanoseconds == .min)
    }

    /// What Purchases' timestamps, Kafka's `*.ms` properties and the simulator's periods use.
    @Test func millisecondsTowardZeroDropTheFraction() {
        #expect(Duration.microseconds(1999).milliseconds(rounding: .towardZero) == 1)
        #expect(Duration.microseconds(-1999).milliseconds(rounding: .towardZero) == -1)
        #expect(Duration.nanoseconds(1).milliseconds(rounding: .towardZero) == 0)
        #expect(Duration.seconds(90).milliseconds(rounding: .towardZero) == 90_000)
    }

    /// What Redis TTLs and delays use: a positive duration never becomes 0 (`PX 0` is an error).
    @Test func millisecondsUpKeepPositiveDurationsPositive() {
        #expect(Duration.nanoseconds(1).milliseconds(rounding: .up) == 1)
        #expect(Duration.microseconds(1001).milliseconds(rounding: .up) == 2)
        #expect(Duration.milliseconds(5).milliseconds(rounding: .up) == 5)
        #expect(Duration.zero.milliseconds(rounding: .up) == 0)
        #expect(Duration.microseconds(-1500).milliseconds(rounding: .up) == -1)
        #expect(Duration(secondsComponent: 2, attosecondsComponent: 1).milliseconds(rounding: .up) == 2001)
    }

    @Test(arguments: [
        (FloatingPointRoundingRule.down, -2 as Int64, 1 as Int64, 2 as Int64),
        (.awayFromZero, -2, 2, 3),
        (.toNearestOrAwayFromZero, -2, 2, 3),
        (.toNearestOrEven, -2, 2, 2),
    ])
    func millisecondsFollowEveryRule(
        rule: FloatingPointRoundingRule, minusOnePointFive: Int64, onePointFive: Int64, twoPointFive: Int64
    ) {
        #expect(Duration.microseconds(-1500).milliseconds(rounding: rule) == minusOnePointFive)
        #expect(Duration.microseconds(1500).milliseconds(rounding: rule) == onePointFive)
        #expect(Duration.microseconds(2500).milliseconds(rounding: rule) == twoPointFive)
    }

    @Test func millisecondsSaturate() {
        #expect(Duration.seconds(Int64.max).milliseconds(rounding: .towardZero) == .max)
        #expect(Duration.seconds(Int64.min).milliseconds(rounding: .up) == .min)
    }
}
