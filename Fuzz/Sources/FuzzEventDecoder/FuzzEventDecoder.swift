import Contracts
import Foundation
import Purchases

/// libFuzzer entry point: the hand-written JSON readers and writers must agree with the
/// `Codable` conformances they stand in for (FastJSONCodable.swift: "the fast path changes
/// speed only"), and no input may trap.
///
/// For each type with a fast reader, whenever `EventDecoder.read` accepts the input,
/// `JSONDecoder` must accept it too and decode an equal value; where the type also has a fast
/// writer, its bytes must equal `JSONEncoder`'s in the event format, and what either writes must
/// read back as the same value (the next stage reads it). Inputs the fast reader refuses go to
/// `JSONDecoder` in production, so only `EventDecoder.decode` over every event type runs on them,
/// for crashes. A disagreement is a `fatalError`, so libFuzzer keeps the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEventDecoder(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    readsLikeCodable(PurchaseEvent.self, bytes)
    readsAndWritesLikeCodable(VerifyRequest.self, bytes)
    readsAndWritesLikeCodable(VerifiedTransaction.self, bytes)
    readsAndWritesLikeCodable(MatchedTransaction.self, bytes)
    readsAndWritesLikeCodable(EntitlementState.self, bytes)
    readsAndWritesLikeCodable(TransactionDetails.self, bytes)
    readsAndWritesLikeCodable(PublisherHints.self, bytes)
    readsAndWritesLikeCodable(NotificationContext.self, bytes)
    readsAndWritesLikeCodable(RenewalDetails.self, bytes)
    _ = try? EventDecoder.decode(AnyEvent.self, from: bytes)
    _ = try? EventDecoder.schema(of: bytes)
    return 0
}

/// Every event a stage decodes, fast reader or not.
private enum AnyEvent: StageInput {
    case purchase(PurchaseEvent), order(OrderEvent), notification(NotificationEvent), request(VerifyRequest)
    case verified(VerifiedTransaction), matched(MatchedTransaction), unmatched(UnmatchedTransaction)
    case entitlement(EntitlementEvent)

    static let cases: [EventCase<Self>] = [
        EventCase(PurchaseEvent.self) { .purchase($0) }, EventCase(OrderEvent.self) { .order($0) },
        EventCase(NotificationEvent.self) { .notification($0) }, EventCase(VerifyRequest.self) { .request($0) },
        EventCase(VerifiedTransaction.self) { .verified($0) }, EventCase(MatchedTransaction.self) { .matched($0) },
        EventCase(UnmatchedTransaction.self) { .unmatched($0) }, EventCase(EntitlementEvent.self) { .entitlement($0) },
    ]
}

/// The value the fast reader read, after checking `JSONDecoder` reads the same; nil when the
/// fast reader refused the input.
@discardableResult
private func readsLikeCodable<Value: FastJSONReadable & Decodable & Equatable>(_ type: Value.Type, _ bytes: [UInt8]) -> Value? {
    guard let fast = try? EventDecoder.read(type, from: bytes) else { return nil }
    let reference: Value
    do {
        reference = try EventDecoder.decodeWithCodable(type, from: bytes)
    } catch {
        finding("\(type): the fast reader accepts what JSONDecoder refuses (\(error))", fast)
    }
    guard fast == reference else { finding("\(type): the fast reader and JSONDecoder disagree; JSONDecoder read \(reference)", fast) }
    return fast
}

private func readsAndWritesLikeCodable<Value: FastJSONCodable & Codable & Equatable>(_ type: Value.Type, _ bytes: [UInt8]) {
    guard let value = readsLikeCodable(type, bytes) else { return }
    var writer = JSONWriter()
    value.write(to: &writer)
    let reference: [UInt8]
    do {
        reference = try EventEncoder.encodeWithCodable(value)
    } catch {
        finding("\(type): JSONEncoder refuses a value the fast reader read (\(error))", value)
    }
    guard writer.bytes == reference else {
        finding("\(type): the fast writer wrote \(String(decoding: writer.bytes, as: UTF8.self)), JSONEncoder \(String(decoding: reference, as: UTF8.self))", value)
    }
    guard (try? EventDecoder.decodeWithCodable(type, from: reference)) == value else {
        finding("\(type): what was written does not read back: \(String(decoding: reference, as: UTF8.self))", value)
    }
}

private func finding(_ problem: String, _ value: some Any) -> Never {
    fatalError("\(problem)\nfast reader's value: \(value)")
}
