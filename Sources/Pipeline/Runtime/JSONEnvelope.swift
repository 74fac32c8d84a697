public import Foundation

/// Decodes a JSON event whose `schema` field names its contract, the way every topic of this
/// pipeline is written. Distinguishes the reason codes the reject topic needs: not JSON or
/// missing fields (`malformed_event`) versus a schema this stage does not read
/// (`unsupported_schema`).
public enum JSONEnvelope {
    private struct SchemaProbe: Decodable { var schema: String? }

    public static func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>, schemas: Set<String>) throws(Rejection) -> T {
        let data = Data(bytes)
        let decoder = JSONDecoder()
        let probe: SchemaProbe
        do {
            probe = try decoder.decode(SchemaProbe.self, from: data)
        } catch {
            throw Rejection(.malformedEvent, "not a JSON object: \(describe(error))")
        }
        guard let schema = probe.schema else {
            throw Rejection(.malformedEvent, "missing required field \"schema\"")
        }
        guard schemas.contains(schema) else {
            throw Rejection(.unsupportedSchema, "schema \"\(schema)\" is not one of \(schemas.sorted())")
        }
        do {
            return try decoder.decode(T.self, from: data)
        } catch {
            throw Rejection(.malformedEvent, describe(error))
        }
    }

    /// A one-line, field-naming description of a decoding error for the reject `detail`.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let prefix = path(context)
            return "missing required field \"\(prefix.isEmpty ? key.stringValue : prefix + "." + key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "field \"\(path(context))\": \(context.debugDescription)"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "invalid JSON: \(context.debugDescription)" : "field \"\(path(context))\": \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
