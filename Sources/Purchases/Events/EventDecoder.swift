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
        let data = Data(bytes)
        let schema = try self.schema(of: data)
        guard schema == Event.schema else {
            throw PurchaseRejection(.unsupportedSchema, "schema '\(schema)' is not \(Event.schema)")
        }
        return try self.decodeBody(type, from: data)
    }

    /// The `schema` string of a JSON object, for readers that take several event types.
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

    /// Decodes without checking `schema` again (after ``schema(of:)`` chose the type).
    static func decodeBody<Event: Decodable>(_ type: Event.Type, from data: Data) throws(PurchaseRejection) -> Event {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw self.rejection(for: error, parsingJSON: false)
        } catch {
            throw PurchaseRejection.malformed("does not decode: \(error)")
        }
    }

    private struct SchemaProbe: Decodable {
        var schema: String?
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
