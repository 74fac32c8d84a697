public import AppStoreModels
import Contracts
import Crypto
public import Customers
public import Foundation
public import Hummingbird
public import Logging
public import ProductCatalog
public import WorkerCommon

/// The read API's routes (docs/openapi.yaml), over the customer state's read copies in Redis:
///
/// - `GET /v1/apps/{bundleId}/customers/{userId}`: what the customer has now, rendered from the
///   customer record (D49) and the product catalog. A customer the pipeline never saw is an
///   empty view, not a 404: "has nothing" is the answer a backend asks for.
/// - `GET /v1/apps/{bundleId}/purchases/{eventId}`: what became of a published purchase event
///   (D51), optionally waiting for its end (``PurchaseRoutes``).
/// - `GET /v1/apps/{bundleId}/transactions/{transactionId}/history`: every stage's decision about
///   a transaction (D51).
/// - `POST /v1/apps/{bundleId}/offers/signatures`: a StoreKit offer signature made with the
///   app's offer key (``OfferKeyring``, D54), for keys with the `sign` scope.
///
/// Authentication comes first, then the parameters, then the lookup: a caller without a valid
/// key learns nothing, not even whether its ids are well formed.
public struct ReadRoutes: Sendable {
    public static let customerPath = "/v1/apps/{bundleId}/customers/{userId}"
    public static let purchasePath = "/v1/apps/{bundleId}/purchases/{eventId}"
    public static let historyPath = "/v1/apps/{bundleId}/transactions/{transactionId}/history"
    public static let offerSignaturePath = "/v1/apps/{bundleId}/offers/signatures"

    let keyring: APIKeyring
    let store: RedisCustomerStore
    let audit: RedisAuditIndex
    let catalog: ProductCatalog
    let offers: OfferKeyring
    let metrics: ReadAPIMetrics
    let logger: Logger
    let now: @Sendable () -> Timestamp
    /// How often a waiting status request looks again.
    let pollInterval: Duration
    /// Customer answers kept rendered.
    let renders: RenderCache

    public init(
        keyring: APIKeyring, store: RedisCustomerStore, audit: RedisAuditIndex, catalog: ProductCatalog,
        offers: OfferKeyring = .empty, metrics: ReadAPIMetrics, logger: Logger,
        now: @escaping @Sendable () -> Timestamp = { Timestamp(Date()) },
        pollInterval: Duration = .milliseconds(200), renderCacheEntries: Int = 0
    ) {
        self.keyring = keyring
        self.store = store
        self.audit = audit
        self.catalog = catalog
        self.offers = offers
        self.metrics = metrics
        self.logger = logger
        self.now = now
        self.pollInterval = pollInterval
        self.renders = RenderCache(capacity: renderCacheEntries)
    }

    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        let routes = self
        router.get(Self.routerPath(Self.customerPath)) { request, context in
            await routes.answer(route: "customer", request) { key in
                try await routes.customer(request, context: context, key: key)
            }
        }
        router.get(Self.routerPath(Self.purchasePath)) { request, context in
            await routes.answer(route: "purchase", request) { key in
                try await routes.purchase(request, context: context, key: key)
            }
        }
        router.get(Self.routerPath(Self.historyPath)) { request, context in
            await routes.answer(route: "history", request) { key in
                try await routes.history(request, context: context, key: key)
            }
        }
        router.post(Self.routerPath(Self.offerSignaturePath)) { request, context in
            await routes.answer(route: "offer_signature", request) { key in
                try await routes.offerSignature(request, context: context, key: key)
            }
        }
        return router
    }

    /// `{name}` (the document's form) as Hummingbird's `:name`.
    private static func routerPath(_ path: String) -> RouterPath {
        RouterPath(stringLiteral: path.replacingOccurrences(of: "{", with: ":").replacingOccurrences(of: "}", with: ""))
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
            response = APIError(.serviceUnavailable, .unavailable, "the state is unavailable; retry").response
        }
        metrics.count(route: route, status: response.status.code, elapsed: ContinuousClock.now - started)
        return response
    }

    func authenticate(_ request: Request) throws(APIError) -> APIKeyring.Key {
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
        try Self.authorize(key, bundleId: bundleId)
        let at = now()
        let cacheKey = bundleId + "|" + userId
        let stored = try await store.storedRecord(bundleId: bundleId, userId: userId)
        if let stored, let kept = renders.render(for: cacheKey, stored: stored, at: at) {
            return Self.json(kept, request: request)
        }
        let record =
            try stored.map { try store.decode($0, bundleId: bundleId, userId: userId) }
            ?? CustomerRecord(bundleId: bundleId, userId: userId)
        let view = CustomerView(record, catalog: catalog, at: at)
        for product in view.unlistedProducts { metrics.noteUnlisted(bundleId: bundleId, productId: product) }
        let render = Self.render(try EventEncoder.encode(value: view))
        if let stored { renders.keep(render, for: cacheKey, stored: stored, validUntil: record.viewChanges(after: at)) }
        return Self.json(render, request: request)
    }

    static func authorize(_ key: APIKeyring.Key, _ scope: APIKeyring.Scope = .read, bundleId: String)
        throws(APIError)
    {
        guard key.may(scope, bundleId: bundleId) else {
            let doing = scope == .read ? "read" : "sign offers for"
            throw APIError(.forbidden, .forbidden, "this API key may not \(doing) app \(bundleId)")
        }
    }

    /// A body with its strong `ETag`.
    static func render(_ body: [UInt8]) -> RenderCache.Render {
        RenderCache.Render(body: body, etag: "\"" + Digest.hex(SHA256.hash(data: body).prefix(16)) + "\"")
    }

    /// 200 with a strong `ETag` of the body, or 304 when the client's `If-None-Match` holds it.
    static func json(_ body: [UInt8], request: Request) -> Response {
        json(render(body), request: request)
    }

    static func json(_ render: RenderCache.Render, request: Request) -> Response {
        let etag = render.etag
        let body = render.body
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
