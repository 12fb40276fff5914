extension Duration {
    /// The duration in seconds, as a `Double`.
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in whole nanoseconds, saturating at `Int64.max`.
    var inNanoseconds: Int64 {
        let (seconds, overflow) = components.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return components.seconds < 0 ? .min : .max }
        let (total, overflowed) = seconds.addingReportingOverflow(components.attoseconds / 1_000_000_000)
        return overflowed ? .max : total
    }
}
