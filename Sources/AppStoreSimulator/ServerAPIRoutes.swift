import Hummingbird

/// What every Server API route of one environment starts with: the caller's app from its bearer
/// token (a bare 401 without a valid one, as Apple answers), the transaction it names, as this
/// environment and app see it (another environment's or app's is 4040010, as on Apple's side),
/// and its body.
protocol ServerAPIRoutes: Sendable {
    var store: Store { get }
    var environment: String { get }
    var authenticator: BearerTokenAuthenticator { get }
}

extension ServerAPIRoutes {
    func authenticated(_ request: Request, _ handler: (String) async throws -> Response) async throws -> Response {
        guard let bundleId = authenticator.authenticate(request) else { return Response(status: .unauthorized) }
        return try await handler(bundleId)
    }

    func lookUp(_ id: String?, bundleId: String) async throws -> SimulatedTransactionPayload {
        guard let id, !id.isEmpty, id.allSatisfy(\.isNumber) else { throw AppleAPIError.invalidTransactionId }
        guard let transaction = await store.transaction(id, environment: environment, bundleId: bundleId) else {
            throw AppleAPIError.transactionIdNotFound
        }
        return transaction
    }

    /// A request body, which Apple refuses as 4000000 when it does not decode.
    func body<Body: Decodable>(_ type: Body.Type, _ request: Request) async throws -> Body {
        do {
            return try await JSONResponse.decode(type, from: request)
        } catch {
            throw AppleAPIError.generalBadRequest
        }
    }
}
