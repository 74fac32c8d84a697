import Foundation
import Hummingbird

/// The Server API's calls that change something or read the app's own purchase, for one
/// environment: Finish Transaction, Set App Account Token, Get App Transaction Info, Extend a
/// Subscription Renewal Date, Extend Renewal Dates for All Active Subscribers and its status.
/// Paths and bodies as Apple's server libraries send them (`api_client.py` of
/// app-store-server-library 3.1); errors as Apple's codes.
struct ServerActionsAPI: ServerAPIRoutes {
    let store: Store
    let environment: String
    let authenticator: BearerTokenAuthenticator

    struct AppAccountTokenBody: Decodable { var appAccountToken: String }

    struct ExtendBody: Decodable {
        var extendByDays: Int
        var extendReasonCode: Int
        var requestIdentifier: String
    }

    struct MassExtendBody: Decodable {
        var extendByDays: Int
        var extendReasonCode: Int
        var requestIdentifier: String
        var productId: String
        var storefrontCountryCodes: [String]?
    }

    private struct ExtendResponse: Encodable {
        var originalTransactionId: String
        var webOrderLineItemId: String?
        var success: Bool
        var effectiveDate: Int64?
    }

    private struct MassExtendStatus: Encodable {
        var requestIdentifier: String
        var complete: Bool
        var completeDate: Int64
        var succeededCount: Int
        var failedCount: Int
    }

    func register(on group: RouterGroup<some RequestContext>) {
        group.post("inApps/v1/transactions/:transactionId/finish") { request, context in
            try await authenticated(request) { bundleId in
                await store.finish(try await lookUp(context.parameters.get("transactionId"), bundleId: bundleId))
                return Response(status: .ok)
            }
        }
        group.put("inApps/v1/transactions/:transactionId/appAccountToken") { request, context in
            try await authenticated(request) { bundleId in
                let original = try await lookUp(context.parameters.get("transactionId"), bundleId: bundleId)
                let body = try await body(AppAccountTokenBody.self, request)
                try await store.setAppAccountToken(original, token: body.appAccountToken)
                return Response(status: .ok)
            }
        }
        group.get("inApps/v1/transactions/appTransactions/:transactionId") { request, context in
            try await authenticated(request) { bundleId in
                let id = context.parameters.get("transactionId") ?? ""
                guard !id.isEmpty, id.allSatisfy(\.isNumber) else { throw AppleAPIError.invalidTransactionId }
                guard let transaction = await store.transaction(id, environment: environment, bundleId: bundleId)
                else { throw AppleAPIError.appTransactionDoesNotExist }
                return try JSONResponse.make(
                    body: ["signedAppTransactionInfo": try await store.appTransaction(of: transaction)])
            }
        }
        group.put("inApps/v1/subscriptions/extend/:transactionId") { request, context in
            try await authenticated(request) { bundleId in
                let transaction = try await lookUp(context.parameters.get("transactionId"), bundleId: bundleId)
                let body = try await body(ExtendBody.self, request)
                let extended = try await store.extend(
                    transaction, days: body.extendByDays, reason: body.extendReasonCode,
                    requestIdentifier: body.requestIdentifier)
                return try JSONResponse.make(
                    body: ExtendResponse(
                        originalTransactionId: extended.originalTransactionId,
                        webOrderLineItemId: extended.webOrderLineItemId, success: true,
                        effectiveDate: extended.expiresDate))
            }
        }
        group.post("inApps/v1/subscriptions/extend/mass") { request, _ in
            try await authenticated(request) { bundleId in
                let body = try await body(MassExtendBody.self, request)
                try await store.massExtend(
                    productId: body.productId, days: body.extendByDays, reason: body.extendReasonCode,
                    requestIdentifier: body.requestIdentifier, storefronts: body.storefrontCountryCodes,
                    bundleId: bundleId, environment: environment)
                return try JSONResponse.make(body: ["requestIdentifier": body.requestIdentifier])
            }
        }
        group.get("inApps/v1/subscriptions/extend/mass/:productId/:requestIdentifier") { request, context in
            try await authenticated(request) { _ in
                let status = try await store.massExtension(
                    productId: context.parameters.get("productId") ?? "",
                    requestIdentifier: context.parameters.get("requestIdentifier") ?? "")
                return try JSONResponse.make(
                    body: MassExtendStatus(
                        requestIdentifier: status.requestIdentifier, complete: true, completeDate: status.completeDate,
                        succeededCount: status.succeededCount, failedCount: status.failedCount))
            }
        }
    }
}
