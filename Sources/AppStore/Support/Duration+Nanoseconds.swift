extension Duration {
    /// Whole nanoseconds, for APIs (NIO `TimeAmount`) that take them; saturates instead of trapping.
    var nanoseconds: Int64 {
        let (seconds, overflow) = self.components.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return self.components.seconds < 0 ? .min : .max }
        let (total, overflowAdding) = seconds.addingReportingOverflow(self.components.attoseconds / 1_000_000_000)
        return overflowAdding ? .max : total
    }
}
