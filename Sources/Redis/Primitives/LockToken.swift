import Synchronization

/// The value stored in a lock key, fresh for every acquisition, so a holder whose lock
/// expired and was re-taken can never release or extend the new owner's lock.
///
/// Uniqueness is what matters, not secrecy: 16 random bytes drawn once per process, then a
/// counter. Drawing 20 random bytes per acquisition cost a `getrandom` call and 20 small
/// strings on every record a worker guards.
public struct LockToken: Sendable, Hashable, CustomStringConvertible {
    public let value: String

    public init(value: String) { self.value = value }

    private static let processPrefix: String = {
        var generator = SystemRandomNumberGenerator()
        return hex(generator.next()) + hex(generator.next())
    }()

    private static let counter = Atomic<UInt64>(0)

    public static func next() -> LockToken {
        let (sequence, _) = counter.add(1, ordering: .relaxed)
        return LockToken(value: processPrefix + hex(sequence))
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    public var description: String { value }
}
