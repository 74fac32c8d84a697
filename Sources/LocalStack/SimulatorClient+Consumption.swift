import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The simulator's consumption routes (decision D34): Apple's `CONSUMPTION_REQUEST` on demand,
/// and the Send Consumption Information answers it accepted.
extension SimulatorClient {
    /// One answer as the simulator's Server API accepted it.
    public struct ConsumptionAnswer: Decodable, Sendable, Equatable {
        public var transactionId: String
        public var environment: String
        public var customerConsented: Bool
        public var sampleContentProvided: Bool
        public var deliveryStatus: String
        public var consumptionPercentage: Int?
        public var refundPreference: String?
    }

    /// Sends a `CONSUMPTION_REQUEST` for the transaction (a consumable or an auto-renewable
    /// subscription) to the notify URL and returns it.
    public func consumptionRequest(transactionId: String, reason: String = "UNINTENDED_PURCHASE") async throws
        -> Notification
    {
        let path = "/sim/v1/transactions/\(transactionId)/consumption-request"
        let bytes = try await self.consumptionCall(
            .POST, path, body: try JSONSerialization.data(withJSONObject: ["reason": reason]))
        return try JSONDecoder().decode(Notification.self, from: Data(bytes.readableBytesView))
    }

    /// `GET /sim/v1/consumption`: every answer accepted so far, oldest first.
    public func consumptionAnswers() async throws -> [ConsumptionAnswer] {
        struct Answers: Decodable { var answers: [ConsumptionAnswer] }
        let bytes = try await self.consumptionCall(.GET, "/sim/v1/consumption", body: nil)
        return try JSONDecoder().decode(Answers.self, from: Data(bytes.readableBytesView)).answers
    }

    /// `PUT /sim/v1/faults`: every Server API call fails with one of `kinds` with probability
    /// `rate` (`rate: 0` turns faults off).
    public func setServerAPIFaults(rate: Double, kinds: [String]) async throws {
        let body = try JSONSerialization.data(withJSONObject: ["rate": rate, "kinds": kinds])
        _ = try await self.consumptionCall(.PUT, "/sim/v1/faults", body: body)
    }

    private func consumptionCall(_ method: HTTPMethod, _ path: String, body: Data?) async throws -> ByteBuffer {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let body {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 4 << 20)
        guard response.status == .ok else {
            throw LocalStackError("simulator \(path) answered \(response.status.code): \(String(buffer: bytes))")
        }
        return bytes
    }
}
