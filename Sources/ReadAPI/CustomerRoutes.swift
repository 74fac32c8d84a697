public import AppStoreModels
import Contracts
import Crypto
public import Customers
public import Foundation
public import Hummingbird
public import Logging
public import ProductCatalog
public import WorkerCommon

/// `GET /v1/apps/{bundleId}/customers/{userId}`: what the customer has now (docs/openapi.yaml),
/// rendered from the customer state's read copy in Redis (D49) and the product catalog.
///
/// Authentication comes first, then the parameters, then the lookup: a caller without a valid
/// key learns nothing, not even whether its ids are well formed. A customer the pipeline never
/// saw is an empty view, not a 404: "has nothing" is the answer a backend asks for.
public struct CustomerRoutes: Sendable {
    public static let customerPath = "/v1/apps/{bundleId}/customers/{userId}"

    let keyring: APIKeyring
    let store: RedisCustomerStore
    let catalog: ProductCatalog
    let metrics: ReadAPIMetrics
    let logger: Logger
    let now: @Sendable () -> Timestamp

    public init(
        keyring: APIKeyring, store: RedisCustomerStore, catalog: ProductCatalog, metrics: ReadAPIMetrics,
        logger: Logger, now: @escaping @Sendable () -> Timestamp = { Timestamp(Date()) }
    ) {
        self.keyring = keyring
        self.store = store
        self.catalog = catalog
        self.metrics = metrics
        self.logger = logger
        self.now = now
    }

    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        let routes = self
        router.get(
            RouterPath(
                stringLiteral: Self.customerPath.replacingOccurrences(of: "{", with: ":").replacingOccurrences(
                    of: "}", with: ""))
        ) {
            request, context in
            await routes.answer(route: "customer", request) { key in
                try await routes.customer(request, context: context, key: key)
            }
        }
        return router
    }

    /// Authenticates, runs `body`, and turns its refusal into the JSON error; counts the answer.
    func answer(route: String, _ request: Request, _ body: (APIKeyring.Key) async throws -> Response) async
        -> Response
    {
        let started = ContinuousClock.now
        var keyName = "-"
        let response: Response
        do {
            let key = try authenticate(request)
            keyName = key.name
            response = try await body(key)
        } catch let error as APIError {
            if error.code != .invalidParameter {
                logger.info(
                    "request refused",
                    metadata: ["route": "\(route)", "key": "\(keyName)", "code": "\(error.code.rawValue)"])
            }
            response = error.response
        } catch {
            logger.warning("request failed", metadata: ["route": "\(route)", "error": "\(error)"])
            response = APIError(.serviceUnavailable, .unavailable, "the customer state is unavailable; retry").response
        }
        metrics.count(route: route, status: response.status.code, elapsed: ContinuousClock.now - started)
        return response
    }

    private func authenticate(_ request: Request) throws(APIError) -> APIKeyring.Key {
        guard let header = request.headers[.authorization] else {
            throw APIError(.unauthorized, .unauthorized, "send Authorization: Bearer <API key>")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", let key = keyring.authenticate(String(parts[1]))
        else {
            throw APIError(.unauthorized, .unauthorized, "the API key is not valid")
        }
        return key
    }

    private func customer(_ request: Request, context: BasicRequestContext, key: APIKeyring.Key) async throws
        -> Response
    {
        let bundleId = try PathParameters.bundleId(context.parameters.get("bundleId"))
        let userId = try PathParameters.userId(context.parameters.get("userId"))
        guard key.mayRead(bundleId: bundleId) else {
            throw APIError(.forbidden, .forbidden, "this API key may not read app \(bundleId)")
        }
        let record =
            try await store.record(bundleId: bundleId, userId: userId)
            ?? CustomerRecord(bundleId: bundleId, userId: userId)
        let view = CustomerView(record, catalog: catalog, at: now())
        for product in view.unlistedProducts { metrics.noteUnlisted(bundleId: bundleId, productId: product) }
        return Self.json(try EventEncoder.encode(value: view), request: request)
    }

    /// 200 with a strong `ETag` of the body, or 304 when the client's `If-None-Match` holds it.
    static func json(_ body: [UInt8], request: Request) -> Response {
        let etag = "\"" + Digest.hex(SHA256.hash(data: body).prefix(16)) + "\""
        let matches = request.headers[.ifNoneMatch].map { header in
            header.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == etag || $0 == "*" }
        }
        if matches == true {
            return Response(status: .notModified, headers: [.eTag: etag])
        }
        return Response(
            status: .ok, headers: [.contentType: "application/json", .eTag: etag, .cacheControl: "no-cache"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
