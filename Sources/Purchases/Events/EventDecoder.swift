import AppStore
import Foundation

/// Turns raw bytes into a typed event or a contract refusal with a specific detail.
///
/// `malformed_event`: not a JSON object, a missing or mistyped field (named), two payload
/// fields. `unsupported_schema`: a `schema` this reader does not read. Unknown fields are
/// ignored, so publishers may add fields without breaking the pipeline.
public enum EventDecoder {
    /// Decodes `bytes` as `type`, checking `schema` first.
    public static func decode<Event: PipelineEvent>(
        _ type: Event.Type,
        from bytes: some Collection<UInt8>
    ) throws(PurchaseRejection) -> Event {
        // The table holds only `Event`, so the cast cannot fail.
        try decode(oneOf: [type], from: bytes) as! Event
    }

    /// Decodes `bytes` as whichever of `types` its `schema` names, in one JSON parse: workers
    /// decode every record they read, and parsing 3 KiB events twice (once for the schema,
    /// once for the body) was a tenth of a stage's CPU.
    ///
    /// A schema none of `types` reads is `unsupported_schema`, naming the schemas expected.
    public static func decode(
        oneOf types: [any PipelineEvent.Type],
        from bytes: some Collection<UInt8>
    ) throws(PurchaseRejection) -> any PipelineEvent {
        if let event = self.fastDecode(oneOf: types, from: bytes) { return event }
        let decoder = JSONDecoder()
        decoder.userInfo[Dispatch.typesKey] = Dispatch.Table(types: types)
        do {
            return try decoder.decode(Dispatch.self, from: Data(bytes)).event
        } catch let problem as Dispatch.SchemaProblem {
            switch problem {
            case .missing: throw PurchaseRejection.malformed("missing field 'schema'")
            case .unsupported(let schema):
                let expected = types.map { $0.schema }.joined(separator: " or ")
                throw PurchaseRejection(.unsupportedSchema, "schema '\(schema)' is not \(expected)")
            }
        } catch let body as Dispatch.BodyError {
            switch body.error {
            case let error as DecodingError: throw self.rejection(for: error, parsingJSON: false)
            default: throw PurchaseRejection.malformed("does not decode: \(body.error)")
            }
        } catch let error as DecodingError {
            throw self.rejection(for: error, parsingJSON: true)
        } catch {
            throw PurchaseRejection.malformed("not a JSON object: \(error)")
        }
    }

    /// The first of `types` with a hand-written decoder that reads `bytes` (each checks its own
    /// `schema`), or nil to let `JSONDecoder` decide, refusals included.
    private static func fastDecode(oneOf types: [any PipelineEvent.Type], from bytes: some Collection<UInt8>) -> (any PipelineEvent)? {
        var array: [UInt8]?
        for case let type as any (PipelineEvent & FastJSONReadable).Type in types {
            let document = array ?? (bytes as? [UInt8] ?? Array(bytes))
            array = document
            if let event = try? self.read(type, from: document) { return event }
        }
        return nil
    }

    /// Reads one whole document as `type`, nothing after it.
    public static func read<Value: FastJSONReadable>(_ type: Value.Type, from bytes: [UInt8]) throws(JSONReader.Failure) -> Value {
        var reader = JSONReader(bytes)
        let value = try Value(from: &reader)
        try reader.end()
        return value
    }

    /// The `schema` string of a JSON object, for tools that only route events.
    public static func schema(of bytes: some Collection<UInt8>) throws(PurchaseRejection) -> String {
        let probe: SchemaProbe
        do {
            probe = try JSONDecoder().decode(SchemaProbe.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw self.rejection(for: error, parsingJSON: true)
        } catch {
            throw PurchaseRejection.malformed("not a JSON object: \(error)")
        }
        guard let schema = probe.schema else { throw PurchaseRejection.malformed("missing field 'schema'") }
        return schema
    }

    private struct SchemaProbe: Decodable {
        var schema: String?
    }

    /// Reads `schema`, then lets the type it names decode the same object.
    private struct Dispatch: Decodable {
        static let typesKey = CodingUserInfoKey(rawValue: "iap.eventTypes")!

        struct Table: Sendable {
            var types: [any PipelineEvent.Type]
        }

        enum SchemaProblem: Error {
            case missing
            case unsupported(String)
        }

        /// An error from the event's own decoding (its fields, its rules), as opposed to the
        /// JSON text or the schema.
        struct BodyError: Error {
            var error: any Error
        }

        private enum Key: String, CodingKey { case schema }

        let event: any PipelineEvent

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            guard let schema = try container.decodeIfPresent(String.self, forKey: .schema) else { throw SchemaProblem.missing }
            let table = decoder.userInfo[Self.typesKey] as? Table
            guard let type = table?.types.first(where: { $0.schema == schema }) else { throw SchemaProblem.unsupported(schema) }
            do {
                event = try type.init(from: decoder)
            } catch {
                throw BodyError(error: error)
            }
        }
    }

    private static func rejection(for error: DecodingError, parsingJSON: Bool) -> PurchaseRejection {
        switch error {
        case .keyNotFound(let key, let context):
            return .malformed("missing field '\(self.path(context.codingPath + [key]))'")
        case .valueNotFound(_, let context):
            return .malformed("missing field '\(self.path(context.codingPath))' (null)")
        case .typeMismatch(let type, let context):
            if context.codingPath.isEmpty { return .malformed("not a JSON object") }
            return .malformed("field '\(self.path(context.codingPath))' is not \(self.name(of: type))")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                // At the top level this is either unparsable text or a rule of the event itself
                // (exactly one payload field), whose description is already specific.
                return .malformed(parsingJSON ? "not valid JSON" : context.debugDescription)
            }
            return .malformed("field '\(self.path(context.codingPath))': \(context.debugDescription)")
        @unknown default:
            return .malformed("does not decode: \(error)")
        }
    }

    private static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int32.Type, is Int64.Type: "an integer"
        case is Bool.Type: "a boolean"
        case is [Any].Type: "an array"
        default: "\(type)"
        }
    }
}
