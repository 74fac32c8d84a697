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
        try await exchange("/sim/v1/transactions/\(transactionId)/consumption-request", body: ["reason": reason])
    }

    /// `GET /sim/v1/consumption`: every answer accepted so far, oldest first.
    public func consumptionAnswers() async throws -> [ConsumptionAnswer] {
        struct Answers: Decodable { var answers: [ConsumptionAnswer] }
        let answers: Answers = try await exchange("/sim/v1/consumption", body: nil, method: .GET)
        return answers.answers
    }
}
