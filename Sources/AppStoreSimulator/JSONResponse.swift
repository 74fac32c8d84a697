import Foundation
import Hummingbird
import NIOCore

/// Builds JSON responses and reads JSON requests with the simulator's own error reporting,
/// so malformed bodies become a 400 with a reason instead of Hummingbird's generic error.
enum JSONResponse {
    static func make(
        status: HTTPResponse.Status = .ok,
        body: some Encodable,
        headers: HTTPFields = [:]
    ) throws -> Response {
        let data = try JSONEncoder.apple.encode(body)
        var fields = headers
        fields[.contentType] = "application/json"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Largest request body the simulator reads; every legitimate request is far smaller.
    static let maximumBodySize = 4 * 1024 * 1024

    static func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: maximumBodySize)
        } catch {
            throw SimulatorError(.badRequest, "request body unreadable or larger than \(maximumBodySize) bytes")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let error as SimulatorError {
            throw error
        } catch let DecodingError.keyNotFound(key, _) {
            throw SimulatorError(.badRequest, "missing field '\(key.stringValue)'")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw SimulatorError(.badRequest, "wrong type at '\(path)': \(context.debugDescription)")
        } catch {
            throw SimulatorError(.badRequest, "body is not valid JSON for this endpoint")
        }
    }
}
