/// The value stored in a lock key: 20 random bytes as hex, fresh for every acquisition, so a
/// holder whose lock expired and was re-taken can never release or extend the new owner's lock.
public struct LockToken: Sendable, Hashable, CustomStringConvertible {
    public let value: String

    public init(value: String) { self.value = value }

    static func random() -> LockToken {
        var generator = SystemRandomNumberGenerator()
        let hex = (0..<20).map { _ in
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }
        return LockToken(value: hex.joined())
    }

    public var description: String { value }
}
