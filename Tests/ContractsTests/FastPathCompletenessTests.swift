import Contracts
import Foundation
import Purchases
import Testing

/// Every stored property of a contract type with a hand-written JSON path is on that path
/// (the hole decision D17 left: add an optional field, forget its `+FastJSON` file, and
/// production drops it on write and ignores it on read while `Codable`-based tests pass).
///
/// Each fixture of ``ContractFixtures`` must set every optional and fill every collection,
/// down to nested values, so a field added later fails here until the fixture sets it; then
/// the hand-written writer's bytes must read back through `Codable` to the fixture, and
/// `Codable`'s bytes through the hand-written reader, so a field either path misses fails too.
@Suite(.timeLimit(.minutes(2))) struct FastPathCompletenessTests {
    /// The paths in `value` that hold nil or an empty collection.
    static func unsetPaths(in value: Any, at path: String) -> [String] {
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            guard let wrapped = mirror.children.first else { return [path] }
            return self.unsetPaths(in: wrapped.value, at: path)
        case .collection, .set, .dictionary:
            guard !mirror.children.isEmpty else { return ["\(path) (empty)"] }
            return mirror.children.enumerated().flatMap { index, child in
                self.unsetPaths(in: child.value, at: "\(path)[\(index)]")
            }
        case .struct, .enum, .tuple, .class:
            return mirror.children.flatMap { child in
                self.unsetPaths(in: child.value, at: "\(path).\(child.label ?? "?")")
            }
        default:
            return []
        }
    }

    static func check<Value: Codable & Equatable>(_ value: Value, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let unset = self.unsetPaths(in: value, at: "\(Value.self)")
        #expect(
            unset.isEmpty, "the fixture leaves \(unset) unset; set it so its fast path is checked",
            sourceLocation: sourceLocation)

        var checked = false
        if let writable = value as? any FastJSONWritable {
            var writer = JSONWriter()
            writable.write(to: &writer)
            let decoded = try EventDecoder.decodeWithCodable(Value.self, from: Data(writer.bytes))
            #expect(
                decoded == value, "the hand-written writer drops a field of \(Value.self)",
                sourceLocation: sourceLocation)
            checked = true
        }
        if let readable = Value.self as? any FastJSONReadable.Type {
            let read = try Self.read(readable, from: try EventEncoder.encodeWithCodable(value))
            #expect(
                read as? Value == value, "the hand-written reader ignores a field of \(Value.self)",
                sourceLocation: sourceLocation)
            checked = true
        }
        #expect(
            checked, "\(Value.self) has no hand-written JSON; it needs no entry here", sourceLocation: sourceLocation)
    }

    private static func read<Value: FastJSONReadable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        try EventDecoder.read(type, from: bytes)
    }

    @Test func purchaseEvent() throws {
        for purchase in ContractFixtures.purchases { try Self.check(purchase) }
    }

    @Test func verifyRequest() throws { try Self.check(ContractFixtures.verifyRequest) }

    @Test func verifiedTransaction() throws { try Self.check(ContractFixtures.verified) }

    @Test func transactionDetails() throws { try Self.check(ContractFixtures.transaction) }

    @Test func publisherHints() throws { try Self.check(ContractFixtures.hints) }

    @Test func notificationContext() throws { try Self.check(ContractFixtures.notification) }

    @Test func renewalDetails() throws { try Self.check(ContractFixtures.renewal) }

    @Test func matchedTransaction() throws { try Self.check(ContractFixtures.matched) }

    @Test func entitlementEvent() throws { try Self.check(ContractFixtures.entitlement) }

    @Test func entitlementState() throws { try Self.check(ContractFixtures.state) }

    @Test func auditEntry() throws { try Self.check(ContractFixtures.audit) }

    @Test func entitlementStateRecord() throws { try Self.check(EntitlementStateRecord(state: ContractFixtures.state)) }

    /// The check itself finds what it must: nil, an empty collection, deep inside a value.
    @Test func unsetFieldsAreFound() {
        var verified = ContractFixtures.verified
        verified.transaction.webOrderLineItemId = nil
        verified.notification?.subtype = nil
        var matched = ContractFixtures.matched
        matched.warnings = []
        #expect(
            Self.unsetPaths(in: verified, at: "v") == ["v.transaction.webOrderLineItemId", "v.notification.subtype"])
        #expect(Self.unsetPaths(in: matched, at: "m") == ["m.warnings (empty)"])
        #expect(Self.unsetPaths(in: ContractFixtures.matched, at: "m").isEmpty)
    }
}
