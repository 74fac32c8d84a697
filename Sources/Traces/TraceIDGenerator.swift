import Synchronization

/// Span and trace ids without a system call each.
///
/// `SpanID.random()` asks the kernel (`getrandom`) for every span, and the runtime opens one
/// span per record in every stage: the system call was ~3 % of a stage's CPU. Ids need to be
/// unique, not secret (W3C Trace Context: "randomly generated", used to correlate, never to
/// authorize), so this is SplitMix64 over a counter seeded once from the system generator. A
/// counter step is odd and SplitMix64's finalizer is a bijection, so a process never repeats an
/// id before 2^64 of them; two processes start from independent random seeds.
final class TraceIDGenerator: RandomNumberGenerator, Sendable {
    private let counter: Atomic<UInt64>

    init(seed: UInt64? = nil) {
        var system = SystemRandomNumberGenerator()
        self.counter = Atomic(seed ?? system.next())
    }

    func next() -> UInt64 {
        var z = counter.wrappingAdd(0x9E37_79B9_7F4A_7C15, ordering: .relaxed).newValue
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
