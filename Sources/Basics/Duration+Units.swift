extension Duration {
    /// The duration in (fractional) seconds, for `Date` and `TimeInterval` arithmetic.
    public var seconds: Double {
        let (seconds, attoseconds) = self.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Whole nanoseconds, for APIs that take them (NIO `TimeAmount`, swift-metrics' `Timer`),
    /// truncated toward zero; saturates at `Int64.min`/`Int64.max` instead of trapping.
    public var nanoseconds: Int64 {
        Int64(clamping: self.totalAttoseconds / 1_000_000_000)
    }

    /// Whole milliseconds, rounded by `rule`; saturates at `Int64.min`/`Int64.max`.
    ///
    /// Callers name the rounding because it matters: `.towardZero` for a value reported or
    /// passed on as is (librdkafka's `*.ms`, timestamps), `.up` where a positive duration must
    /// never become 0 (Redis `PX` and script TTLs, where 0 means "expire now" or an error).
    public func milliseconds(rounding rule: FloatingPointRoundingRule) -> Int64 {
        let unit: Int128 = 1_000_000_000_000_000
        let (quotient, remainder) = self.totalAttoseconds.quotientAndRemainder(dividingBy: unit)
        let away: Int128 = remainder < 0 ? -1 : 1
        let twiceRemainder = (remainder < 0 ? -remainder : remainder) * 2
        let rounded: Int128
        switch rule {
        case .towardZero:
            rounded = quotient
        case .awayFromZero:
            rounded = remainder == 0 ? quotient : quotient + away
        case .up:
            rounded = remainder > 0 ? quotient + 1 : quotient
        case .down:
            rounded = remainder < 0 ? quotient - 1 : quotient
        case .toNearestOrAwayFromZero:
            rounded = twiceRemainder >= unit ? quotient + away : quotient
        case .toNearestOrEven:
            let roundsAway = twiceRemainder > unit || (twiceRemainder == unit && quotient % 2 != 0)
            rounded = roundsAway ? quotient + away : quotient
        @unknown default:
            rounded = quotient
        }
        return Int64(clamping: rounded)
    }

    /// The whole duration in attoseconds.
    private var totalAttoseconds: Int128 {
        let (seconds, attoseconds) = self.components
        return Int128(seconds) * 1_000_000_000_000_000_000 + Int128(attoseconds)
    }
}
