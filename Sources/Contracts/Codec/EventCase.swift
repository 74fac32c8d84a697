/// One event type a stage reads and the case of its input enum that carries it.
///
/// A stage that reads more than one schema (intake: purchases and notifications; match:
/// verified transactions and orders) lists its cases once, in its ``StageInput``, and
/// ``EventDecoder`` hands back that enum: a decoded record is always one of the cases, so no
/// caller needs an arm for an event type it cannot receive.
public struct EventCase<Input>: Sendable {
    let schema: String
    /// The hand-written reader, when the event has one: nil when it does not take the bytes.
    let fastRead: (@Sendable ([UInt8]) -> Input?)?
    let decode: @Sendable (any Decoder) throws -> Input

    public init<Event: PipelineEvent>(_ type: Event.Type, _ wrap: @escaping @Sendable (Event) -> Input) {
        self.schema = Event.schema
        if let readable = Event.self as? any FastJSONReadable.Type {
            self.fastRead = { bytes in
                // `readable` is `Event.self`, so the value read is an `Event`.
                guard let event = EventDecoder.readIfPossible(readable, from: bytes) as? Event else { return nil }
                return wrap(event)
            }
        } else {
            self.fastRead = nil
        }
        self.decode = { decoder in wrap(try Event(from: decoder)) }
    }
}

/// The records a stage reads, one case per contract event, decoded in one parse by
/// ``EventDecoder/decode(_:from:)-(StageInput.Type,_)``.
public protocol StageInput: Sendable {
    /// Every event this stage reads, each with the case that carries it.
    static var cases: [EventCase<Self>] { get }
}
