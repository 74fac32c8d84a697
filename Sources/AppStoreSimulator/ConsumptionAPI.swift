import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// Send Consumption Information v2 (`PUT /inApps/v2/transactions/consumption/{transactionId}`):
/// checks the body as Apple documents it, answers 202 and keeps what it accepted in the
/// ``ConsumptionLog`` for `GET /sim/v1/consumption`.
struct ConsumptionAPI: ServerAPIRoutes {
    let store: Store
    let environment: String
    let authenticator: BearerTokenAuthenticator
    let log: ConsumptionLog

    /// Apple's `ConsumptionRequest` fields, all optional here so a missing one gets Apple's code.
    private struct Body: Decodable {
        var customerConsented: Bool?
        var sampleContentProvided: Bool?
        var deliveryStatus: String?
        var consumptionPercentage: Int?
        var refundPreference: String?
    }

    static let deliveryStatuses: Set<String> = [
        "DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE",
        "UNDELIVERED_OTHER",
    ]
    static let refundPreferences: Set<String> = ["DECLINE", "GRANT_FULL", "GRANT_PRORATED"]

    func register(on group: RouterGroup<some RequestContext>) {
        group.put("inApps/v2/transactions/consumption/:transactionId") { request, context in
            guard let bundleId = authenticator.authenticate(request) else { return Response(status: .unauthorized) }
            let transaction = try await lookUp(context.parameters.get("transactionId"), bundleId: bundleId)
            let id = transaction.transactionId
            let body = try await body(Body.self, request)
            let accepted = try Self.check(body, productType: transaction.type)
            log.append(
                ReceivedConsumption(
                    transactionId: id, environment: environment, customerConsented: accepted.customerConsented,
                    sampleContentProvided: accepted.sampleContentProvided, deliveryStatus: accepted.deliveryStatus,
                    consumptionPercentage: body.consumptionPercentage, refundPreference: body.refundPreference,
                    receivedAt: Store.milliseconds(Date())
                ))
            return Response(status: .accepted)
        }
    }

    /// Apple's rules for the body (`ConsumptionRequest`, `consumptionPercentage`, `refundPreference`).
    private static func check(_ body: Body, productType: String) throws -> (
        customerConsented: Bool, sampleContentProvided: Bool, deliveryStatus: String
    ) {
        guard body.customerConsented == true else { throw AppleAPIError.invalidCustomerConsented }
        guard let delivery = body.deliveryStatus, deliveryStatuses.contains(delivery) else {
            throw AppleAPIError.invalidDeliveryStatus
        }
        guard let sample = body.sampleContentProvided else { throw AppleAPIError.invalidSampleContentProvided }
        if let percentage = body.consumptionPercentage {
            guard (0...100_000).contains(percentage), productType != AppleValues.ProductType.autoRenewable else {
                throw AppleAPIError.generalBadRequest
            }
        }
        if let preference = body.refundPreference {
            guard refundPreferences.contains(preference) else { throw AppleAPIError.generalBadRequest }
            if preference == "GRANT_PRORATED", productType != AppleValues.ProductType.autoRenewable,
                (body.consumptionPercentage ?? 0) <= 0
            {
                throw AppleAPIError.generalBadRequest
            }
        }
        return (true, sample, delivery)
    }
}

extension AppleAPIError {
    static let invalidCustomerConsented = AppleAPIError(
        errorCode: 4_000_035, errorMessage: "Invalid request. The customer consented field is invalid.")
    static let invalidDeliveryStatus = AppleAPIError(
        errorCode: 4_000_036, errorMessage: "Invalid request. The delivery status field is invalid.")
    static let invalidSampleContentProvided = AppleAPIError(
        errorCode: 4_000_041, errorMessage: "Invalid request. The sample content provided field is invalid.")
}

/// One consumption answer the simulator accepted.
struct ReceivedConsumption: Codable, Sendable, Equatable {
    var transactionId: String
    var environment: String
    var customerConsented: Bool
    var sampleContentProvided: Bool
    var deliveryStatus: String
    var consumptionPercentage: Int?
    var refundPreference: String?
    /// Milliseconds since 1970.
    var receivedAt: Int64
}

/// Every consumption answer accepted so far, oldest first.
final class ConsumptionLog: Sendable {
    private let received = Mutex<[ReceivedConsumption]>([])

    func append(_ item: ReceivedConsumption) { received.withLock { $0.append(item) } }
    var all: [ReceivedConsumption] { received.withLock { $0 } }
}
