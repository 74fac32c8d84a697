import AppStoreModels
public import Basics
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
    ) throws(Rejection) -> Event {
        // The hand-written reader first, without building a case list: this runs per record.
        if let readable = Event.self as? any FastJSONReadable.Type,
            let event = Self.readIfPossible(readable, from: bytes as? [UInt8] ?? Array(bytes)) as? Event
        {
            return event
        }
        return try self.decodeWithJSONDecoder(oneOf: [EventCase(type) { $0 }], from: bytes)
    }

    /// Decodes `bytes` as whichever of the stage's events its `schema` names, in one JSON
    /// parse: workers decode every record they read, and parsing 3 KiB events twice (once for
    /// the schema, once for the body) was a tenth of a stage's CPU.
    ///
    /// A schema none of the cases reads is `unsupported_schema`, naming the schemas expected.
    public static func decode<Input: StageInput>(
        _ type: Input.Type,
        from bytes: some Collection<UInt8>
    ) throws(Rejection) -> Input {
        try self.decode(oneOf: Input.cases, from: bytes)
    }

    private static func decode<Input>(
        oneOf cases: [EventCase<Input>],
        from bytes: some Collection<UInt8>
    ) throws(Rejection) -> Input {
        if let input = self.fastDecode(oneOf: cases, from: bytes) { return input }
        return try self.decodeWithJSONDecoder(oneOf: cases, from: bytes)
    }

    /// `JSONDecoder`'s decision, refusals included, worded for the reject topic.
    private static func decodeWithJSONDecoder<Input>(
        oneOf cases: [EventCase<Input>],
        from bytes: some Collection<UInt8>
    ) throws(Rejection) -> Input {
        let decoder = Self.codableDecoder()
        decoder.userInfo[Dispatch<Input>.casesKey] = Dispatch<Input>.Table(cases: cases)
        do {
            return try decoder.decode(Dispatch<Input>.self, from: Data(bytes)).input
        } catch let problem as SchemaProblem {
            switch problem {
            case .missing: throw Rejection.malformed("missing field 'schema'")
            case .unsupported(let schema):
                let expected = cases.map(\.schema).joined(separator: " or ")
                throw Rejection(.unsupportedSchema, "schema '\(schema)' is not \(expected)")
            }
        } catch let body as BodyError {
            switch body.error {
            case let error as DecodingError: throw self.rejection(for: error, parsingJSON: false)
            default: throw Rejection.malformed("does not decode: \(body.error)")
            }
        } catch let error as DecodingError {
            throw self.rejection(for: error, parsingJSON: true)
        } catch {
            throw Rejection.malformed("not a JSON object: \(error)")
        }
    }

    /// The first case with a hand-written reader that reads `bytes` (each checks its own
    /// `schema`), or nil to let `JSONDecoder` decide, refusals included.
    private static func fastDecode<Input>(oneOf cases: [EventCase<Input>], from bytes: some Collection<UInt8>) -> Input?
    {
        var array: [UInt8]?
        for eventCase in cases {
            guard let read = eventCase.fastRead else { continue }
            let document = array ?? (bytes as? [UInt8] ?? Array(bytes))
            array = document
            if let input = read(document) { return input }
        }
        return nil
    }

    /// Decodes `bytes` as `type` through `Codable` only, never the hand-written reader, in the
    /// events' format (timestamps as ISO-8601 strings): the reference the fast path is held to
    /// (D17), and the reader of stored values the fast path did not take.
    public static func decodeWithCodable<Value: Decodable>(_ type: Value.Type, from bytes: some Collection<UInt8>)
        throws -> Value
    {
        try self.codableDecoder().decode(type, from: Data(bytes))
    }

    private static func codableDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.userInfo[Timestamp.jsonFormKey] = Timestamp.JSONForm.iso8601
        return decoder
    }

    /// ``read(_:from:)`` without its failure, for a type known only at run time.
    static func readIfPossible<Value: FastJSONReadable>(_ type: Value.Type, from bytes: [UInt8]) -> Value? {
        try? self.read(type, from: bytes)
    }

    /// Reads one whole document as `type`, nothing after it.
    public static func read<Value: FastJSONReadable>(_ type: Value.Type, from bytes: [UInt8]) throws(JSONReader.Failure)
        -> Value
    {
        var reader = JSONReader(bytes)
        let value = try Value(from: &reader)
        try reader.end()
        return value
    }

    /// The `schema` string of a JSON object, for tools that only route events.
    public static func schema(of bytes: some Collection<UInt8>) throws(Rejection) -> String {
        let probe: SchemaProbe
        do {
            probe = try JSONDecoder().decode(SchemaProbe.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw self.rejection(for: error, parsingJSON: true)
        } catch {
            throw Rejection.malformed("not a JSON object: \(error)")
        }
        guard let schema = probe.schema else { throw Rejection.malformed("missing field 'schema'") }
        return schema
    }

    private struct SchemaProbe: Decodable {
        var schema: String?
    }

    private enum SchemaProblem: Error {
        case missing
        case unsupported(String)
    }

    /// An error from the event's own decoding (its fields, its rules), as opposed to the JSON
    /// text or the schema.
    private struct BodyError: Error {
        var error: any Error
    }

    /// Reads `schema`, then lets the case it names decode the same object.
    private struct Dispatch<Input>: Decodable {
        static var casesKey: CodingUserInfoKey { CodingUserInfoKey(rawValue: "iap.eventCases")! }

        struct Table: Sendable {
            var cases: [EventCase<Input>]
        }

        private enum Key: String, CodingKey { case schema }

        let input: Input

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            guard let schema = try container.decodeIfPresent(String.self, forKey: .schema) else {
                throw SchemaProblem.missing
            }
            let table = decoder.userInfo[Self.casesKey] as? Table
            guard let eventCase = table?.cases.first(where: { $0.schema == schema }) else {
                throw SchemaProblem.unsupported(schema)
            }
            do {
                input = try eventCase.decode(decoder)
            } catch {
                throw BodyError(error: error)
            }
        }
    }

    private static func rejection(for error: DecodingError, parsingJSON: Bool) -> Rejection {
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
