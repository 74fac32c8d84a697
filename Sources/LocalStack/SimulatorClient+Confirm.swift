import NIOHTTP1

/// What the confirm stage changed at the simulated App Store (decision D55).
extension SimulatorClient {
    /// `GET /sim/v1/transactions/{id}/finished`: whether Finish Transaction was called for it.
    public func isFinished(transactionId: String) async throws -> Bool {
        struct Finished: Decodable { var finished: Bool }
        let answer: Finished = try await exchange(
            "/sim/v1/transactions/\(transactionId)/finished", body: nil, method: .GET)
        return answer.finished
    }

    /// `GET /sim/v1/transactions/{id}/app-transaction`: the signed AppTransaction of the customer
    /// who made the transaction, as the app would read `AppTransaction.shared`.
    public func appTransaction(ofTransactionId transactionId: String) async throws -> String {
        struct Answer: Decodable { var signedAppTransaction: String }
        let answer: Answer = try await exchange(
            "/sim/v1/transactions/\(transactionId)/app-transaction", body: nil, method: .GET)
        return answer.signedAppTransaction
    }
}
