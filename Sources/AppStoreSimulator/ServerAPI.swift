import Foundation
import Hummingbird

/// The App Store Server API (`/inApps/...`) for one environment.
///
/// Every call needs a valid bearer token (else a bare 401, as Apple); the token's `bid` selects
/// the app. Transactions of the other environment or another app are 4040010, as on Apple's side.
struct ServerAPI: ServerAPIRoutes {
    let store: Store
    let environment: String
    let appAppleId: Int64
    let authenticator: BearerTokenAuthenticator

    /// Apple's page size for history and notification history.
    static let pageSize = 20

    func register(on group: RouterGroup<some RequestContext>) {
        group.get("inApps/v1/transactions/:transactionId") { request, context in
            try await authenticated(request) { bundleId in
                let transaction = try await lookUp(context.parameters.get("transactionId"), bundleId: bundleId)
                let signed = try await store.sign(transaction)
                return try JSONResponse.make(body: ["signedTransactionInfo": signed])
            }
        }
        for version in ["v1", "v2"] {
            group.get(RouterPath("inApps/\(version)/history/:transactionId")) { request, context in
                try await authenticated(request) { bundleId in
                    let transaction = try await lookUp(context.parameters.get("transactionId"), bundleId: bundleId)
                    return try await history(of: transaction, request: request, bundleId: bundleId)
                }
            }
        }
        group.get("inApps/v2/refund/lookup/:transactionId") { request, context in
            try await authenticated(request) { bundleId in
                let transaction = try await lookUp(context.parameters.get("transactionId"), bundleId: bundleId)
                return try await refunds(of: transaction, request: request)
            }
        }
        group.get("inApps/v1/subscriptions/:transactionId") { request, context in
            try await authenticated(request) { bundleId in
                let transaction = try await lookUp(context.parameters.get("transactionId"), bundleId: bundleId)
                return try await statuses(of: transaction, request: request, bundleId: bundleId)
            }
        }
        group.get("inApps/v1/lookup/:orderId") { request, context in
            try await authenticated(request) { bundleId in
                let orderId = context.parameters.get("orderId") ?? ""
                let found = await store.transactions(forOrder: orderId, environment: environment, bundleId: bundleId)
                var signed: [String] = []
                for transaction in found { signed.append(try await store.sign(transaction)) }
                return try JSONResponse.make(
                    body: OrderLookupResponse(status: signed.isEmpty ? 1 : 0, signedTransactions: signed))
            }
        }
        group.post("inApps/v1/notifications/history") { request, _ in
            try await authenticated(request) { bundleId in
                try await notificationHistory(request, bundleId: bundleId)
            }
        }
        group.post("inApps/v1/notifications/test") { request, _ in
            try await authenticated(request) { bundleId in
                let token = try await store.testNotification(bundleId: bundleId, environment: environment)
                return try JSONResponse.make(body: ["testNotificationToken": token])
            }
        }
        group.get("inApps/v1/notifications/test/:token") { request, context in
            try await authenticated(request) { bundleId in
                guard let record = await store.testNotificationRecord(token: context.parameters.get("token") ?? ""),
                    record.bundleId == bundleId, record.environment == environment
                else { throw AppleAPIError.testNotificationNotFound }
                return try JSONResponse.make(
                    body: TestNotificationStatus(signedPayload: record.signedPayload, sendAttempts: record.sendAttempts)
                )
            }
        }
    }

    // MARK: Handlers

    private struct HistoryResponse: Encodable {
        var revision: String
        var hasMore: Bool
        var bundleId: String
        var appAppleId: Int64
        var environment: String
        var signedTransactions: [String]
    }

    /// Get Transaction History: the customer's transactions, 20 per page, `revision` to continue.
    /// Supports `sort`, `productId`, `productType`, `revoked`, `startDate`/`endDate` and
    /// `inAppOwnershipType` filters.
    private func history(of transaction: SimulatedTransactionPayload, request: Request, bundleId: String) async throws
        -> Response
    {
        let query = request.uri.queryParameters
        var items = await store.customerTransactions(of: transaction)
        let productIds = query.getAll("productId")
        if !productIds.isEmpty { items = items.filter { productIds.contains($0.productId) } }
        let productTypes = try query.getAll("productType").map(Self.productType)
        if !productTypes.isEmpty { items = items.filter { productTypes.contains($0.type) } }
        let ownership = query.getAll("inAppOwnershipType")
        if !ownership.isEmpty { items = items.filter { ownership.contains($0.inAppOwnershipType) } }
        if let revoked = query.get("revoked").map({ $0 == "true" }) {
            items = items.filter { ($0.revocationDate != nil) == revoked }
        }
        if let start = query.get("startDate", as: Int64.self) { items = items.filter { $0.purchaseDate >= start } }
        if let end = query.get("endDate", as: Int64.self) { items = items.filter { $0.purchaseDate < end } }
        items.sort { $0.purchaseDate < $1.purchaseDate }
        if query.get("sort") == "DESCENDING" { items.reverse() }

        let offset = try query.get("revision").map { try PageToken.offset(from: $0, invalid: .invalidRevision) } ?? 0
        let page = items.dropFirst(offset).prefix(Self.pageSize)
        var signed: [String] = []
        for item in page { signed.append(try await store.sign(item)) }
        let next = offset + page.count
        return try JSONResponse.make(
            body: HistoryResponse(
                revision: PageToken.make(offset: next), hasMore: next < items.count, bundleId: bundleId,
                appAppleId: appAppleId, environment: environment, signedTransactions: signed
            ))
    }

    private struct RefundHistoryResponse: Encodable {
        var signedTransactions: [String]
        var revision: String
        var hasMore: Bool
    }

    /// Get Refund History: the customer's refunded or revoked transactions, ascending by
    /// `revocationDate`, 20 per page.
    private func refunds(of transaction: SimulatedTransactionPayload, request: Request) async throws -> Response {
        let refunded = await store.customerTransactions(of: transaction)
            .filter { $0.revocationDate != nil }
            .sorted { ($0.revocationDate ?? 0) < ($1.revocationDate ?? 0) }
        let offset =
            try request.uri.queryParameters.get("revision")
            .map { try PageToken.offset(from: $0, invalid: .invalidRevision) } ?? 0
        let page = refunded.dropFirst(offset).prefix(Self.pageSize)
        var signed: [String] = []
        for item in page { signed.append(try await store.sign(item)) }
        let next = offset + page.count
        return try JSONResponse.make(
            body: RefundHistoryResponse(
                signedTransactions: signed, revision: PageToken.make(offset: next), hasMore: next < refunded.count
            ))
    }

    private static func productType(_ name: String) throws -> String {
        switch name {
        case "AUTO_RENEWABLE": AppleValues.ProductType.autoRenewable
        case "NON_RENEWABLE": AppleValues.ProductType.nonRenewing
        case "CONSUMABLE": AppleValues.ProductType.consumable
        case "NON_CONSUMABLE": AppleValues.ProductType.nonConsumable
        default:
            throw AppleAPIError(
                errorCode: 4_000_022, errorMessage: "Invalid request. The product type parameter is invalid.")
        }
    }

    private struct StatusResponse: Encodable {
        struct Group: Encodable {
            var subscriptionGroupIdentifier: String
            var lastTransactions: [Item]
        }

        struct Item: Encodable {
            var status: Int
            var originalTransactionId: String
            var signedTransactionInfo: String
            var signedRenewalInfo: String
        }

        var environment: String
        var bundleId: String
        var appAppleId: Int64
        var data: [Group]
    }

    /// Get All Subscription Statuses, optionally filtered by repeated `status` parameters.
    private func statuses(of transaction: SimulatedTransactionPayload, request: Request, bundleId: String) async throws
        -> Response
    {
        let wanted = request.uri.queryParameters.getAll("status", as: Int.self)
        let all = try await store.subscriptionStatuses(of: transaction).filter {
            wanted.isEmpty || wanted.contains($0.status)
        }
        var groups: [StatusResponse.Group] = []
        for status in all {
            let item = StatusResponse.Item(
                status: status.status, originalTransactionId: status.originalTransactionId,
                signedTransactionInfo: status.signedTransactionInfo, signedRenewalInfo: status.signedRenewalInfo
            )
            if let index = groups.firstIndex(where: {
                $0.subscriptionGroupIdentifier == status.subscriptionGroupIdentifier
            }) {
                groups[index].lastTransactions.append(item)
            } else {
                groups.append(
                    .init(subscriptionGroupIdentifier: status.subscriptionGroupIdentifier, lastTransactions: [item]))
            }
        }
        return try JSONResponse.make(
            body: StatusResponse(
                environment: environment, bundleId: bundleId, appAppleId: appAppleId, data: groups
            ))
    }

    private struct OrderLookupResponse: Encodable {
        var status: Int
        var signedTransactions: [String]
    }

    private struct NotificationHistoryRequest: Decodable {
        var startDate: Int64?
        var endDate: Int64?
        var notificationType: String?
        var notificationSubtype: String?
        var transactionId: String?
        var onlyFailures: Bool?
    }

    private struct NotificationHistoryResponse: Encodable {
        struct Item: Encodable {
            var signedPayload: String
            var sendAttempts: [SendAttempt]
        }

        var paginationToken: String
        var hasMore: Bool
        var notificationHistory: [Item]
    }

    private struct TestNotificationStatus: Encodable {
        var signedPayload: String
        var sendAttempts: [SendAttempt]
    }

    /// Get Notification History: body filters, 20 per page, `paginationToken` query parameter.
    private func notificationHistory(_ request: Request, bundleId: String) async throws -> Response {
        let filter = try await body(NotificationHistoryRequest.self, request)
        if filter.transactionId != nil, filter.notificationType != nil { throw AppleAPIError.multipleFilters }
        var originalTransactionId: String?
        if let id = filter.transactionId {
            originalTransactionId = try await lookUp(id, bundleId: bundleId).originalTransactionId
        }
        let records = await store.notificationHistory().filter { record in
            guard record.environment == environment, record.bundleId == bundleId else { return false }
            if let start = filter.startDate, record.signedDate < start { return false }
            if let end = filter.endDate, record.signedDate >= end { return false }
            if let type = filter.notificationType, record.notificationType != type { return false }
            if let subtype = filter.notificationSubtype, record.subtype != subtype { return false }
            if let originalTransactionId, record.originalTransactionId != originalTransactionId { return false }
            if filter.onlyFailures == true, record.sendAttempts.contains(where: { $0.sendAttemptResult == "SUCCESS" }) {
                return false
            }
            return true
        }
        let offset =
            try request.uri.queryParameters.get("paginationToken")
            .map { try PageToken.offset(from: $0, invalid: .invalidPaginationToken) } ?? 0
        let page = records.dropFirst(offset).prefix(Self.pageSize)
        let next = offset + page.count
        return try JSONResponse.make(
            body: NotificationHistoryResponse(
                paginationToken: PageToken.make(offset: next), hasMore: next < records.count,
                notificationHistory: page.map { .init(signedPayload: $0.signedPayload, sendAttempts: $0.sendAttempts) }
            ))
    }
}

/// Opaque page tokens (`revision`, `paginationToken`): base64 of the next offset.
enum PageToken {
    static func make(offset: Int) -> String { Data("offset:\(offset)".utf8).base64EncodedString() }

    static func offset(from token: some StringProtocol, invalid: AppleAPIError) throws -> Int {
        guard let data = Data(base64Encoded: String(token)), let text = String(data: data, encoding: .utf8),
            text.hasPrefix("offset:"), let offset = Int(text.dropFirst("offset:".count)), offset >= 0
        else { throw invalid }
        return offset
    }
}
