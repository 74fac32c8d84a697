import Contracts
import Foundation
import Purchases

/// The hand-written JSON readers and writers must agree with the `Codable` conformances they
/// stand in for (FastJSONCodable.swift: "the fast path changes speed only"), and no input may trap.
///
/// For each type with a fast reader, whenever `EventDecoder.read` accepts the input,
/// `JSONDecoder` must accept it too and decode an equal value; where the type also has a fast
/// writer, its bytes must equal `JSONEncoder`'s in the event format, and what either writes must
/// read back as the same value (the next stage reads it). Inputs the fast reader refuses go to
/// `JSONDecoder` in production, so only `EventDecoder.decode` over every event type runs on them,
/// for crashes. True when a fast reader or the decoder of every event type accepted the input.
@discardableResult
public func checkEventDecoder(_ bytes: [UInt8]) throws(FuzzFinding) -> Bool {
    let read = [
        try readsLikeCodable(PurchaseEvent.self, bytes) != nil,
        try readsAndWritesLikeCodable(VerifyRequest.self, bytes),
        try readsAndWritesLikeCodable(VerifiedTransaction.self, bytes),
        try readsAndWritesLikeCodable(MatchedTransaction.self, bytes),
        try readsAndWritesLikeCodable(EntitlementState.self, bytes),
        try readsAndWritesLikeCodable(TransactionDetails.self, bytes),
        try readsAndWritesLikeCodable(PublisherHints.self, bytes),
        try readsAndWritesLikeCodable(NotificationContext.self, bytes),
        try readsAndWritesLikeCodable(RenewalDetails.self, bytes),
    ]
    let decoded = (try? EventDecoder.decode(AnyEvent.self, from: bytes)) != nil
    _ = try? EventDecoder.schema(of: bytes)
    return read.contains(true) || decoded
}

/// Every event a stage decodes, fast reader or not.
private enum AnyEvent: StageInput {
    case purchase(PurchaseEvent)
    case order(OrderEvent)
    case notification(NotificationEvent)
    case request(VerifyRequest)
    case verified(VerifiedTransaction)
    case matched(MatchedTransaction)
    case unmatched(UnmatchedTransaction)
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
private func readsLikeCodable<Value: FastJSONReadable & Decodable & Equatable>(
    _ type: Value.Type, _ bytes: [UInt8]
) throws(FuzzFinding) -> Value? {
    guard let fast = try? EventDecoder.read(type, from: bytes) else { return nil }
    let reference: Value
    do {
        reference = try EventDecoder.decodeWithCodable(type, from: bytes)
    } catch {
        throw finding("\(type): the fast reader accepts what JSONDecoder refuses (\(error))", fast)
    }
    guard fast == reference else {
        throw finding("\(type): the fast reader and JSONDecoder disagree; JSONDecoder read \(reference)", fast)
    }
    return fast
}

/// True when the fast reader read the input (and the writers were checked).
private func readsAndWritesLikeCodable<Value: FastJSONCodable & Codable & Equatable>(
    _ type: Value.Type, _ bytes: [UInt8]
) throws(FuzzFinding) -> Bool {
    guard let value = try readsLikeCodable(type, bytes) else { return false }
    var writer = JSONWriter()
    value.write(to: &writer)
    let reference: [UInt8]
    do {
        reference = try EventEncoder.encodeWithCodable(value)
    } catch {
        throw finding("\(type): JSONEncoder refuses a value the fast reader read (\(error))", value)
    }
    guard writer.bytes == reference else {
        throw finding(
            "\(type): the fast writer wrote \(String(decoding: writer.bytes, as: UTF8.self)), "
                + "JSONEncoder \(String(decoding: reference, as: UTF8.self))", value)
    }
    guard (try? EventDecoder.decodeWithCodable(type, from: reference)) == value else {
        throw finding(
            "\(type): what was written does not read back: \(String(decoding: reference, as: UTF8.self))", value)
    }
    return true
}

private func finding(_ problem: String, _ value: some Any) -> FuzzFinding {
    FuzzFinding("\(problem)\nfast reader's value: \(value)")
}
