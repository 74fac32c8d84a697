import Basics
import Foundation

/// A notification the simulated App Store has produced, with its delivery record.
struct NotificationRecord: Sendable {
    var notificationUUID: String
    var notificationType: String
    var subtype: String?
    var signedPayload: String
    var environment: String
    var bundleId: String
    var originalTransactionId: String?
    var signedDate: Int64
    var sendAttempts: [SendAttempt]
}

/// One delivery attempt, as Get Notification History reports it.
struct SendAttempt: Codable, Sendable, Equatable {
    var attemptDate: Int64
    /// SUCCESS, TIMED_OUT, NO_RESPONSE, UNSUCCESSFUL_HTTP_RESPONSE_CODE, ...
    var sendAttemptResult: String
}

/// The simulated App Store's data: transactions, subscriptions, orders and notifications.
///
/// An actor because the control API, Server API, verifyReceipt and the notification sender all
/// touch it concurrently. It signs what it hands out at the moment it hands it out, so
/// `signedDate` is always the time of the response, as with Apple. Everything is in memory.
actor Store {
    /// One purchase line: a subscription's renewals, or a single one-time purchase.
    private struct Chain {
        var transactionIds: [String]
        var expired = false
        var autoRenew = true
        var periodMs: Int64?
        /// Apple is retrying a failed renewal.
        var billingRetry = false
        /// While in a billing grace period: when it ends (access is kept until then).
        var gracePeriodEnd: Int64?
    }

    private let signer: JWSSigner
    private let receipts: ReceiptEncoder
    private let settings: AppStoreSimulatorConfiguration
    private let sender: NotificationSender

    private var transactions: [String: SimulatedTransactionPayload] = [:]
    /// Transaction ids per customer with an `appAccountToken`, in creation order, so lookups
    /// stay cheap when benchmarks create many purchases.
    private var customers: [String: [String]] = [:]
    private var chains: [String: Chain] = [:]
    private var orders: [String: [String]] = [:]
    private var orderOfTransaction: [String: String] = [:]
    private var appTransactionIds: [String: String] = [:]
    private var notifications: [NotificationRecord] = []
    private var notificationIndex: [String: Int] = [:]
    private var testNotifications: [String: String] = [:]
    /// Transactions a Finish Transaction call finished.
    private var finished: Set<String> = []
    /// Each subscription's individual extensions, by originalTransactionId (at most two a year).
    private var extensions: [String: [Int64]] = [:]
    /// Mass extension requests, by `<productId>|<requestIdentifier>`.
    private var massExtensions: [String: MassExtension] = [:]
    private var ids: IdentifierGenerator

    init(
        signer: JWSSigner, receipts: ReceiptEncoder, settings: AppStoreSimulatorConfiguration,
        sender: NotificationSender
    ) {
        self.signer = signer
        self.receipts = receipts
        self.settings = settings
        self.sender = sender
        self.ids = IdentifierGenerator(now: Date())
    }

    // MARK: Lifecycle (control API)

    func purchase(_ request: PurchaseRequest) throws -> TransactionResponse {
        let bundleId = request.bundleId ?? settings.bundleId
        let environment = request.environment ?? AppleValues.Environment.sandbox
        let ownership = request.inAppOwnershipType ?? AppleValues.OwnershipType.purchased
        let quantity = request.quantity ?? 1
        guard !bundleId.isEmpty, !request.productId.isEmpty else {
            throw SimulatorError(.badRequest, "bundleId and productId must not be empty")
        }
        guard AppleValues.ProductType.all.contains(request.type) else {
            throw SimulatorError(
                .badRequest, "type must be one of \(AppleValues.ProductType.all.joined(separator: ", "))")
        }
        guard [AppleValues.Environment.sandbox, AppleValues.Environment.production].contains(environment) else {
            throw SimulatorError(.badRequest, "environment must be Sandbox or Production")
        }
        guard [AppleValues.OwnershipType.purchased, AppleValues.OwnershipType.familyShared].contains(ownership) else {
            throw SimulatorError(.badRequest, "inAppOwnershipType must be PURCHASED or FAMILY_SHARED")
        }
        guard (1...10_000).contains(quantity) else {
            throw SimulatorError(.badRequest, "quantity must be within 1...10000")
        }
        if let token = request.appAccountToken, UUID(uuidString: token) == nil {
            throw SimulatorError(.badRequest, "appAccountToken must be a UUID")
        }
        if let seconds = request.expiresInSeconds, !(seconds.isFinite && seconds > 0 && seconds < 1e10) {
            throw SimulatorError(.badRequest, "expiresInSeconds must be positive")
        }

        let now = Self.milliseconds(Date())
        let isSubscription = request.type == AppleValues.ProductType.autoRenewable
        let group = isSubscription ? (request.subscriptionGroupIdentifier ?? "\(bundleId).subscriptions") : nil
        let periodMs =
            request.expiresInSeconds.map { Int64($0 * 1000) }
            ?? settings.subscriptionPeriod.milliseconds(rounding: .towardZero)
        let customer = Self.customerKey(bundleId: bundleId, environment: environment, token: request.appAccountToken)
        let appTransactionId = appTransactionIds[customer] ?? ids.nextAppTransactionId()
        appTransactionIds[customer] = appTransactionId

        let upgraded = group.flatMap { group in
            activeChain(bundleId: bundleId, environment: environment, token: request.appAccountToken, group: group)
        }.flatMap { chainId in
            transactions[chains[chainId]?.transactionIds.last ?? ""]?.productId == request.productId ? nil : chainId
        }

        let transactionId = ids.nextTransactionId()
        let originalTransactionId = upgraded ?? transactionId
        let originalPurchaseDate = upgraded.flatMap { transactions[$0]?.purchaseDate } ?? now
        let transaction = SimulatedTransactionPayload(
            transactionId: transactionId,
            originalTransactionId: originalTransactionId,
            webOrderLineItemId: isSubscription ? ids.nextWebOrderLineItemId() : nil,
            bundleId: bundleId,
            productId: request.productId,
            subscriptionGroupIdentifier: group,
            purchaseDate: now,
            originalPurchaseDate: originalPurchaseDate,
            expiresDate: isSubscription ? now + periodMs : nil,
            quantity: quantity,
            type: request.type,
            appAccountToken: request.appAccountToken?.lowercased(),
            inAppOwnershipType: ownership,
            signedDate: 0,
            environment: environment,
            storefront: "USA",
            storefrontId: "143441",
            transactionReason: "PURCHASE",
            currency: request.currency ?? "USD",
            price: request.price ?? 990,
            appTransactionId: appTransactionId
        )
        insert(transaction)
        let orderId = ids.nextOrderId()
        orders[orderId] = [transactionId]
        orderOfTransaction[transactionId] = orderId

        var type = AppleValues.NotificationType.oneTimeCharge
        var subtype: String?
        if let upgraded, let previousId = chains[upgraded]?.transactionIds.last {
            transactions[previousId]?.isUpgraded = true
            chains[upgraded]?.transactionIds.append(transactionId)
            chains[upgraded]?.periodMs = periodMs
            type = AppleValues.NotificationType.didChangeRenewalPref
            subtype = AppleValues.Subtype.upgrade
        } else {
            chains[transactionId] = Chain(transactionIds: [transactionId], periodMs: isSubscription ? periodMs : nil)
            if isSubscription {
                type = AppleValues.NotificationType.subscribed
                subtype = AppleValues.Subtype.initialBuy
            }
        }
        let notification = try notify(
            type: type, subtype: subtype, transaction: transactions[transactionId] ?? transaction,
            deliver: request.deliver ?? true)
        return try response(for: transactionId, signedPayload: notification)
    }

    /// A renewal and its DID_RENEW; with `deliver` false, every delivery attempt of the
    /// notification fails (it is in history, marked failed), as if the gateway were unreachable.
    func renew(originalTransactionId: String, deliver: Bool = true) throws -> TransactionResponse {
        let (chain, latest) = try subscription(originalTransactionId)
        guard latest.revocationDate == nil else {
            throw SimulatorError(.conflict, "subscription \(originalTransactionId) was refunded or revoked")
        }
        let now = Self.milliseconds(Date())
        let period = chain.periodMs ?? settings.subscriptionPeriod.milliseconds(rounding: .towardZero)
        let start = max(now, latest.expiresDate ?? now)
        var renewal = latest
        renewal.transactionId = ids.nextTransactionId()
        renewal.webOrderLineItemId = ids.nextWebOrderLineItemId()
        renewal.purchaseDate = start
        renewal.expiresDate = start + period
        renewal.transactionReason = "RENEWAL"
        renewal.isUpgraded = nil
        insert(renewal)
        chains[originalTransactionId]?.transactionIds.append(renewal.transactionId)
        chains[originalTransactionId]?.expired = false
        chains[originalTransactionId]?.autoRenew = true
        chains[originalTransactionId]?.billingRetry = false
        chains[originalTransactionId]?.gracePeriodEnd = nil
        let orderId = ids.nextOrderId()
        orders[orderId] = [renewal.transactionId]
        orderOfTransaction[renewal.transactionId] = orderId
        let notification = try notify(
            type: AppleValues.NotificationType.didRenew,
            subtype: chain.billingRetry ? AppleValues.Subtype.billingRecovery : nil, transaction: renewal,
            deliver: deliver)
        return try response(for: renewal.transactionId, signedPayload: notification)
    }

    /// The renewal's payment failed (`DID_FAIL_TO_RENEW`): Apple retries billing, and with
    /// `gracePeriodSeconds` the customer keeps access that long past the period's end (subtype
    /// GRACE_PERIOD, `gracePeriodExpiresDate` in the renewal info). A later ``renew`` is the
    /// billing recovery.
    func failRenewal(originalTransactionId: String, gracePeriodSeconds: Double?) throws -> NotificationResponse {
        let (chain, latest) = try subscription(originalTransactionId)
        guard !chain.expired, latest.revocationDate == nil, !chain.billingRetry else {
            throw SimulatorError(.conflict, "subscription \(originalTransactionId) is not renewing")
        }
        chains[originalTransactionId]?.billingRetry = true
        chains[originalTransactionId]?.gracePeriodEnd = gracePeriodSeconds.map { seconds in
            (latest.expiresDate ?? Self.milliseconds(Date())) + Int64((seconds * 1000).rounded())
        }
        let notification = try notify(
            type: AppleValues.NotificationType.didFailToRenew,
            subtype: gracePeriodSeconds == nil ? nil : AppleValues.Subtype.gracePeriod, transaction: latest)
        return NotificationResponse(signedPayload: notification)
    }

    /// The billing grace period ended without a recovery (`GRACE_PERIOD_EXPIRED`): access ends,
    /// Apple keeps retrying billing.
    func endGracePeriod(originalTransactionId: String) throws -> NotificationResponse {
        let (chain, latest) = try subscription(originalTransactionId)
        guard chain.gracePeriodEnd != nil else {
            throw SimulatorError(.conflict, "subscription \(originalTransactionId) is not in a grace period")
        }
        chains[originalTransactionId]?.gracePeriodEnd = nil
        let notification = try notify(
            type: AppleValues.NotificationType.gracePeriodExpired, subtype: nil, transaction: latest)
        return NotificationResponse(signedPayload: notification)
    }

    /// Ends a subscription: it no longer renews and Get All Subscription Statuses reports it
    /// expired. With `notify` false no notification is made at all (not even in history), the
    /// lost `EXPIRED` only reconcile's sweep can make up for.
    func expire(originalTransactionId: String, notify sendsNotification: Bool = true) throws -> NotificationResponse {
        let (chain, latest) = try subscription(originalTransactionId)
        guard !chain.expired else {
            throw SimulatorError(.conflict, "subscription \(originalTransactionId) already expired")
        }
        chains[originalTransactionId]?.expired = true
        chains[originalTransactionId]?.autoRenew = false
        guard sendsNotification else { return NotificationResponse(signedPayload: nil) }
        let notification = try notify(
            type: AppleValues.NotificationType.expired, subtype: AppleValues.Subtype.voluntary, transaction: latest
        )
        return NotificationResponse(signedPayload: notification)
    }

    /// Turns auto-renew on or off (`DID_CHANGE_RENEWAL_STATUS`, AUTO_RENEW_ENABLED/DISABLED).
    func setAutoRenew(originalTransactionId: String, enabled: Bool) throws -> NotificationResponse {
        let (chain, latest) = try subscription(originalTransactionId)
        guard chain.autoRenew != enabled else {
            throw SimulatorError(
                .conflict, "auto-renew of \(originalTransactionId) is already \(enabled ? "on" : "off")")
        }
        chains[originalTransactionId]?.autoRenew = enabled
        let subtype = enabled ? AppleValues.Subtype.autoRenewEnabled : AppleValues.Subtype.autoRenewDisabled
        let notification = try notify(
            type: AppleValues.NotificationType.didChangeRenewalStatus, subtype: subtype, transaction: latest
        )
        return NotificationResponse(signedPayload: notification)
    }

    /// Refund (`REFUND`, revocationType REFUND_FULL) or family-sharing revocation (`REVOKE`,
    /// FAMILY_REVOKE); either way the transaction now carries `revocationDate`.
    func revoke(transactionId: String, familySharing: Bool) throws -> NotificationResponse {
        guard var transaction = transactions[transactionId] else {
            throw SimulatorError(.notFound, "no transaction \(transactionId)")
        }
        guard transaction.revocationDate == nil else {
            throw SimulatorError(.conflict, "transaction \(transactionId) is already refunded or revoked")
        }
        transaction.revocationDate = Self.milliseconds(Date())
        transaction.revocationReason = 0
        transaction.revocationType = familySharing ? "FAMILY_REVOKE" : "REFUND_FULL"
        transactions[transactionId] = transaction
        if transaction.type == AppleValues.ProductType.autoRenewable,
            chains[transaction.originalTransactionId]?.transactionIds.last == transactionId
        {
            chains[transaction.originalTransactionId]?.autoRenew = false
        }
        let type = familySharing ? AppleValues.NotificationType.revoke : AppleValues.NotificationType.refund
        return NotificationResponse(signedPayload: try notify(type: type, subtype: nil, transaction: transaction))
    }

    /// The customer asked for a refund of `transactionId` and Apple asks for consumption data
    /// (`CONSUMPTION_REQUEST`, sent only for consumables and auto-renewable subscriptions).
    func consumptionRequest(transactionId: String, reason: String) throws -> NotificationResponse {
        guard let transaction = transactions[transactionId] else {
            throw SimulatorError(.notFound, "no transaction \(transactionId)")
        }
        guard [AppleValues.ProductType.consumable, AppleValues.ProductType.autoRenewable].contains(transaction.type)
        else {
            throw SimulatorError(.conflict, "Apple sends no CONSUMPTION_REQUEST for a \(transaction.type)")
        }
        var data = SimulatedNotificationPayload.Data(
            appAppleId: settings.appAppleId, bundleId: transaction.bundleId, bundleVersion: settings.bundleVersion,
            environment: transaction.environment, signedTransactionInfo: try sign(transaction)
        )
        data.consumptionRequestReason = reason
        let notification = try makeNotification(
            type: AppleValues.NotificationType.consumptionRequest, subtype: nil, data: data,
            originalTransactionId: transaction.originalTransactionId)
        return NotificationResponse(signedPayload: notification.signedPayload)
    }

    // MARK: Queries (Server API, verifyReceipt)

    /// A transaction as seen from one environment and app; nil when it belongs to another,
    /// which Apple reports exactly like an unknown id.
    func transaction(_ id: String, environment: String, bundleId: String?) -> SimulatedTransactionPayload? {
        guard let transaction = transactions[id], transaction.environment == environment,
            bundleId.map({ $0 == transaction.bundleId }) ?? true
        else { return nil }
        return transaction
    }

    func sign(_ transaction: SimulatedTransactionPayload) throws -> String {
        var transaction = transaction
        transaction.signedDate = Self.milliseconds(Date())
        return try signer.sign(transaction)
    }

    /// Every transaction of the customer who owns `transaction`, in creation order.
    ///
    /// The customer is the `appAccountToken` when there is one (within bundle and environment),
    /// otherwise just the transaction's own purchase line.
    func customerTransactions(of transaction: SimulatedTransactionPayload) -> [SimulatedTransactionPayload] {
        let ids =
            transaction.appAccountToken.map {
                customers[
                    Self.customerKey(bundleId: transaction.bundleId, environment: transaction.environment, token: $0)]
                    ?? []
            } ?? chains[transaction.originalTransactionId]?.transactionIds ?? [transaction.transactionId]
        return ids.compactMap { transactions[$0] }
    }

    /// The latest transaction, signed renewal info and status of every subscription the owner of
    /// `transaction` has, for Get All Subscription Statuses.
    func subscriptionStatuses(of transaction: SimulatedTransactionPayload) throws -> [SubscriptionStatus] {
        let originals = customerTransactions(of: transaction)
            .filter { $0.type == AppleValues.ProductType.autoRenewable }
            .map(\.originalTransactionId)
        var seen = Set<String>()
        return try originals.filter { seen.insert($0).inserted }.compactMap { original in
            guard let chain = chains[original], let latestId = chain.transactionIds.last,
                let latest = transactions[latestId]
            else { return nil }
            return SubscriptionStatus(
                subscriptionGroupIdentifier: latest.subscriptionGroupIdentifier ?? "",
                originalTransactionId: original,
                status: status(of: chain, latest: latest),
                signedTransactionInfo: try sign(latest),
                signedRenewalInfo: try signer.sign(renewalInfo(chain: chain, latest: latest))
            )
        }
    }

    func transactions(forOrder orderId: String, environment: String, bundleId: String) -> [SimulatedTransactionPayload]
    {
        (orders[orderId] ?? []).compactMap { transaction($0, environment: environment, bundleId: bundleId) }
    }

    /// All transactions of a purchase line, oldest first (for verifyReceipt's latest_receipt_info).
    func chainTransactions(_ originalTransactionId: String) -> [SimulatedTransactionPayload] {
        (chains[originalTransactionId]?.transactionIds ?? []).compactMap { transactions[$0] }
    }

    func renewalState(_ originalTransactionId: String) -> (autoRenew: Bool, expired: Bool)? {
        chains[originalTransactionId].map { ($0.autoRenew, $0.expired) }
    }

    // MARK: Notifications

    func notificationHistory() -> [NotificationRecord] { notifications }

    func recordAttempt(notificationUUID: String, _ attempt: SendAttempt) {
        guard let index = notificationIndex[notificationUUID] else { return }
        notifications[index].sendAttempts.append(attempt)
    }

    /// Creates and sends a TEST notification; returns its token for Get Test Notification Status.
    func testNotification(bundleId: String, environment: String) throws -> String {
        let payload = try makeNotification(
            type: AppleValues.NotificationType.test, subtype: nil,
            data: .init(
                appAppleId: settings.appAppleId, bundleId: bundleId, bundleVersion: settings.bundleVersion,
                environment: environment
            ),
            originalTransactionId: nil
        )
        let token = UUID().uuidString.lowercased() + "_" + String(payload.signedDate)
        testNotifications[token] = payload.uuid
        return token
    }

    func testNotificationRecord(token: String) -> NotificationRecord? {
        guard let uuid = testNotifications[token] else { return nil }
        return notificationIndex[uuid].map { notifications[$0] }
    }

    // MARK: Server API actions (Finish Transaction, Set App Account Token, App Transaction, extensions)

    /// Finish Transaction: Apple answers 200 for a transaction finished before too.
    func finish(_ transaction: SimulatedTransactionPayload) {
        finished.insert(transaction.transactionId)
    }

    /// Whether Finish Transaction was called for `transactionId` (the control API's view).
    func isFinished(_ transactionId: String) -> Bool { finished.contains(transactionId) }

    /// Set App Account Token: the purchase line of `original` and its later renewals carry `token`.
    func setAppAccountToken(_ original: SimulatedTransactionPayload, token: String) throws {
        guard original.transactionId == original.originalTransactionId else {
            throw AppleAPIError.transactionIdNotOriginalTransactionId
        }
        guard UUID(uuidString: token) != nil else { throw AppleAPIError.invalidAppAccountTokenUUID }
        guard original.inAppOwnershipType != AppleValues.OwnershipType.familyShared else {
            throw AppleAPIError.familyTransactionNotSupported
        }
        for id in chains[original.originalTransactionId]?.transactionIds ?? [original.transactionId] {
            guard var transaction = transactions[id] else { continue }
            transaction.appAccountToken = token.lowercased()
            insert(transaction)
        }
    }

    /// Get App Transaction Info: the app's purchase by the customer who made `transaction`, the
    /// customer's first transaction standing in for the app's download.
    /// The AppTransaction of the customer who made transaction `id`, as StoreKit's
    /// `AppTransaction.shared` shows it on their device (`/sim/v1`: no token needed).
    func appTransaction(ofId id: String) throws -> String {
        guard let transaction = transactions[id] else { throw SimulatorError(.notFound, "no transaction \(id)") }
        return try appTransaction(of: transaction)
    }

    func appTransaction(of transaction: SimulatedTransactionPayload) throws -> String {
        let first = customerTransactions(of: transaction).first ?? transaction
        return try signer.sign(
            SimulatedAppTransactionPayload(
                receiptType: transaction.environment, appAppleId: settings.appAppleId,
                bundleId: transaction.bundleId, applicationVersion: settings.bundleVersion,
                versionExternalIdentifier: 0, receiptCreationDate: Self.milliseconds(Date()),
                originalPurchaseDate: first.originalPurchaseDate, originalApplicationVersion: "1",
                appTransactionId: transaction.appTransactionId, originalPlatform: "iOS"))
    }

    /// Extend a Subscription Renewal Date: the current period of an active subscription ends
    /// `days` later (1–90, at most twice in 365 days), and RENEWAL_EXTENDED tells the server.
    /// Returns the extended transaction.
    func extend(_ transaction: SimulatedTransactionPayload, days: Int, reason: Int, requestIdentifier: String) throws
        -> SimulatedTransactionPayload
    {
        try Self.checkExtension(days: days, reason: reason, requestIdentifier: requestIdentifier)
        guard transaction.inAppOwnershipType != AppleValues.OwnershipType.familyShared else {
            throw AppleAPIError.familySharedSubscriptionExtensionIneligible
        }
        guard let chain = chains[transaction.originalTransactionId], let latestId = chain.transactionIds.last,
            var latest = transactions[latestId], latest.type == AppleValues.ProductType.autoRenewable,
            status(of: chain, latest: latest) == 1
        else { throw AppleAPIError.subscriptionExtensionIneligible }
        let now = Self.milliseconds(Date())
        let recent = (extensions[transaction.originalTransactionId] ?? []).filter { now - $0 < 365 * 86_400_000 }
        guard recent.count < 2 else { throw AppleAPIError.subscriptionMaxExtension }
        extensions[transaction.originalTransactionId] = recent + [now]
        latest.expiresDate = (latest.expiresDate ?? now) + Int64(days) * 86_400_000
        insert(latest)
        _ = try notify(type: AppleValues.NotificationType.renewalExtended, subtype: nil, transaction: latest)
        return latest
    }

    /// Extend Renewal Dates for All Active Subscribers: every active subscription to
    /// `productId` in the app and environment (in `storefronts`, when given) is extended at once,
    /// each with its RENEWAL_EXTENDED; the request's status is complete immediately. (Apple's
    /// RENEWAL_EXTENSION summary notification is not sent.)
    func massExtend(
        productId: String, days: Int, reason: Int, requestIdentifier: String, storefronts: [String]?,
        bundleId: String, environment: String
    ) throws {
        try Self.checkExtension(days: days, reason: reason, requestIdentifier: requestIdentifier)
        guard !productId.isEmpty else { throw AppleAPIError.generalBadRequest }
        var succeeded = 0
        var failed = 0
        for original in chains.keys.sorted() {
            guard let latest = chains[original]?.transactionIds.last.flatMap({ transactions[$0] }),
                latest.productId == productId, latest.bundleId == bundleId, latest.environment == environment,
                storefronts.map({ $0.contains(latest.storefront) }) ?? true
            else { continue }
            do {
                _ = try extend(latest, days: days, reason: reason, requestIdentifier: requestIdentifier)
                succeeded += 1
            } catch {
                failed += 1
            }
        }
        massExtensions[productId + "|" + requestIdentifier] = MassExtension(
            requestIdentifier: requestIdentifier, productId: productId, completeDate: Self.milliseconds(Date()),
            succeededCount: succeeded, failedCount: failed)
    }

    /// Get Status of Subscription Renewal Date Extensions.
    func massExtension(productId: String, requestIdentifier: String) throws -> MassExtension {
        guard let request = massExtensions[productId + "|" + requestIdentifier] else {
            throw AppleAPIError.statusRequestNotFound
        }
        return request
    }

    private static func checkExtension(days: Int, reason: Int, requestIdentifier: String) throws {
        guard (1...90).contains(days) else { throw AppleAPIError.invalidExtendByDays }
        guard (0...3).contains(reason) else { throw AppleAPIError.invalidExtendReasonCode }
        guard (1...128).contains(requestIdentifier.count) else { throw AppleAPIError.invalidRequestIdentifier }
    }

    // MARK: Receipts

    /// The base64 app receipt the customer of `transaction` would hold now.
    func appReceipt(for transaction: SimulatedTransactionPayload) throws -> String {
        try receipts.appReceipt(
            environment: transaction.environment, bundleId: transaction.bundleId,
            transactions: customerTransactions(of: transaction), createdAt: Date()
        )
    }

    // MARK: Helpers

    /// Stores a new or changed transaction, indexed under its customer's token (moved when Set
    /// App Account Token changed it).
    private func insert(_ transaction: SimulatedTransactionPayload) {
        let previous = transactions.updateValue(transaction, forKey: transaction.transactionId)
        guard previous?.appAccountToken != transaction.appAccountToken || previous == nil else { return }
        if let old = previous?.appAccountToken {
            customers[
                Self.customerKey(bundleId: transaction.bundleId, environment: transaction.environment, token: old)]?
                .removeAll { $0 == transaction.transactionId }
        }
        if let token = transaction.appAccountToken {
            customers[
                Self.customerKey(bundleId: transaction.bundleId, environment: transaction.environment, token: token),
                default: []
            ]
            .append(transaction.transactionId)
        }
    }

    private func subscription(_ originalTransactionId: String) throws -> (Chain, SimulatedTransactionPayload) {
        guard let chain = chains[originalTransactionId], let latestId = chain.transactionIds.last,
            let latest = transactions[latestId]
        else { throw SimulatorError(.notFound, "no purchase with originalTransactionId \(originalTransactionId)") }
        guard latest.type == AppleValues.ProductType.autoRenewable else {
            throw SimulatorError(
                .conflict, "\(originalTransactionId) is a \(latest.type), not an auto-renewable subscription")
        }
        return (chain, latest)
    }

    private func activeChain(bundleId: String, environment: String, token: String?, group: String) -> String? {
        guard let token = token?.lowercased() else { return nil }
        let owned = customers[Self.customerKey(bundleId: bundleId, environment: environment, token: token)] ?? []
        let originals = Set(owned.compactMap { transactions[$0]?.originalTransactionId })
        return originals.first { original in
            guard let chain = chains[original], let latest = chain.transactionIds.last.flatMap({ transactions[$0] })
            else {
                return false
            }
            return latest.subscriptionGroupIdentifier == group && status(of: chain, latest: latest) == 1
        }
    }

    /// Apple's subscription status: 1 active, 2 expired, 5 revoked (family sharing).
    private func status(of chain: Chain, latest: SimulatedTransactionPayload) -> Int {
        if latest.revocationType == "FAMILY_REVOKE" { return 5 }
        if chain.expired || latest.revocationDate != nil { return 2 }
        if let end = chain.gracePeriodEnd, end > Self.milliseconds(Date()) { return 4 }
        if chain.billingRetry { return 3 }
        if let expires = latest.expiresDate, expires <= Self.milliseconds(Date()) { return 2 }
        return 1
    }

    private func renewalInfo(chain: Chain, latest: SimulatedTransactionPayload) -> SimulatedRenewalInfoPayload {
        let first = chain.transactionIds.first.flatMap { transactions[$0] } ?? latest
        return SimulatedRenewalInfoPayload(
            originalTransactionId: latest.originalTransactionId,
            productId: latest.productId,
            autoRenewProductId: latest.productId,
            autoRenewStatus: chain.autoRenew ? 1 : 0,
            expirationIntent: chain.expired ? 1 : chain.billingRetry ? 2 : nil,
            isInBillingRetryPeriod: chain.billingRetry,
            gracePeriodExpiresDate: chain.gracePeriodEnd,
            signedDate: Self.milliseconds(Date()),
            environment: latest.environment,
            recentSubscriptionStartDate: first.purchaseDate,
            renewalDate: chain.autoRenew ? latest.expiresDate : nil,
            currency: latest.currency,
            renewalPrice: latest.price,
            appAccountToken: latest.appAccountToken,
            appTransactionId: latest.appTransactionId
        )
    }

    /// Signs, records and sends a lifecycle notification about `transaction`; returns the signed payload.
    private func notify(
        type: String, subtype: String?, transaction: SimulatedTransactionPayload, deliver: Bool = true
    ) throws -> String {
        var data = SimulatedNotificationPayload.Data(
            appAppleId: settings.appAppleId, bundleId: transaction.bundleId, bundleVersion: settings.bundleVersion,
            environment: transaction.environment, signedTransactionInfo: try sign(transaction)
        )
        if transaction.type == AppleValues.ProductType.autoRenewable,
            let chain = chains[transaction.originalTransactionId],
            let latest = chain.transactionIds.last.flatMap({ transactions[$0] })
        {
            data.signedRenewalInfo = try signer.sign(renewalInfo(chain: chain, latest: latest))
            data.status = status(of: chain, latest: latest)
        }
        return try makeNotification(
            type: type, subtype: subtype, data: data, originalTransactionId: transaction.originalTransactionId,
            deliver: deliver
        ).signedPayload
    }

    private func makeNotification(
        type: String, subtype: String?, data: SimulatedNotificationPayload.Data, originalTransactionId: String?,
        deliver: Bool = true
    ) throws -> (uuid: String, signedPayload: String, signedDate: Int64) {
        let payload = SimulatedNotificationPayload(
            notificationType: type, subtype: subtype, notificationUUID: UUID().uuidString.lowercased(),
            data: data, version: "2.0", signedDate: Self.milliseconds(Date())
        )
        let signed = try signer.sign(payload)
        let uuid = payload.notificationUUID
        sender.enqueue(
            NotificationDelivery(
                notificationUUID: uuid, signedPayload: signed, environment: data.environment, lost: !deliver,
                recordAttempt: { attempt in await self.recordAttempt(notificationUUID: uuid, attempt) }
            ))
        notificationIndex[uuid] = notifications.count
        notifications.append(
            NotificationRecord(
                notificationUUID: payload.notificationUUID, notificationType: type, subtype: subtype,
                signedPayload: signed, environment: data.environment, bundleId: data.bundleId,
                originalTransactionId: originalTransactionId, signedDate: payload.signedDate, sendAttempts: []
            ))
        return (payload.notificationUUID, signed, payload.signedDate)
    }

    private func response(for transactionId: String, signedPayload: String) throws -> TransactionResponse {
        guard let transaction = transactions[transactionId] else {
            throw SimulatorError(.notFound, "no transaction \(transactionId)")
        }
        return TransactionResponse(
            transactionId: transactionId,
            originalTransactionId: transaction.originalTransactionId,
            signedTransaction: try sign(transaction),
            appReceipt: try appReceipt(for: transaction),
            transactionReceipt: try receipts.transactionReceipt(for: transaction),
            orderId: orderOfTransaction[transactionId] ?? "",
            signedPayload: signedPayload
        )
    }

    private static func customerKey(bundleId: String, environment: String, token: String?) -> String {
        "\(bundleId)|\(environment)|\(token?.lowercased() ?? "-")"
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}

/// One entry of Get All Subscription Statuses' `lastTransactions`, with its group.
struct SubscriptionStatus: Sendable {
    var subscriptionGroupIdentifier: String
    var originalTransactionId: String
    var status: Int
    var signedTransactionInfo: String
    var signedRenewalInfo: String
}
