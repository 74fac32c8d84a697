public import AppStore
public import AppStoreModels
import Foundation

/// Apple's answers about one customer, every page, every signed item checked with verify's
/// trust (``SignedDataChecker``): Look Up Order ID, Get Refund History, Get Transaction History
/// and Get All Subscription Statuses.
public struct AppleCustomerLookups: Sendable {
    public let client: AppStoreServerAPIClient
    public let checker: SignedDataChecker
    /// Pages followed per call at most; Apple's own bound is the customer's history.
    public var maximumPages = 500

    public init(client: AppStoreServerAPIClient, checker: SignedDataChecker) {
        self.client = client
        self.checker = checker
    }

    /// Look Up Order ID: `found` is Apple's `status` 0.
    public func order(_ orderId: String) async throws(SupportError) -> (
        found: Bool, environment: AppStoreEnvironment, transactions: [CheckedTransaction]
    ) {
        let response: AppStoreAPIResponse<OrderLookupResponse>
        do throws(AppStoreAPIError) {
            response = try await client.lookUpOrderId(orderId)
        } catch {
            throw SupportError(call: "Look Up Order ID", error)
        }
        var checked: [CheckedTransaction] = []
        for jws in response.value.signedTransactions ?? [] { checked.append(await checker.transaction(jws)) }
        return (response.value.status == 0 && !checked.isEmpty, response.environment, checked)
    }

    /// Get Refund History, following `revision` while `hasMore`.
    public func refunds(of transactionId: String) async throws(SupportError) -> TransactionListReport {
        try await allPages("Get Refund History", of: transactionId) { revision throws(AppStoreAPIError) in
            try await client.getRefundHistory(transactionId: transactionId, revision: revision)
        }
    }

    /// Get Transaction History (the customer's transactions of this app), every page.
    public func history(of transactionId: String) async throws(SupportError) -> TransactionListReport {
        try await allPages("Get Transaction History", of: transactionId) { revision throws(AppStoreAPIError) in
            try await client.getTransactionHistory(
                transactionId: transactionId, request: TransactionHistoryRequest(sort: .ascending), revision: revision)
        }
    }

    /// Reads `call`'s pages from the first to the last (at most ``maximumPages``).
    private func allPages<Page: SignedTransactionPage>(
        _ call: String, of transactionId: String,
        _ page: (String?) async throws(AppStoreAPIError) -> AppStoreAPIResponse<Page>
    ) async throws(SupportError) -> TransactionListReport {
        var transactions: [String] = []
        var revision: String?
        var pages = 0
        var environment = client.configuration.environment
        repeat {
            let answer: AppStoreAPIResponse<Page>
            do throws(AppStoreAPIError) {
                answer = try await page(revision)
            } catch {
                throw SupportError(call: call, error)
            }
            environment = answer.environment
            transactions += answer.value.signedTransactions ?? []
            pages += 1
            revision = answer.value.hasMore == true ? answer.value.revision : nil
        } while revision != nil && pages < maximumPages
        return await report(transactionId, environment: environment, pages: pages, transactions)
    }

    /// Get All Subscription Statuses: per subscription group, the last transaction of each
    /// subscription with its status and renewal info.
    public func statuses(of transactionId: String) async throws(SupportError) -> SubscriptionStatusReport {
        let response: AppStoreAPIResponse<StatusResponse>
        do throws(AppStoreAPIError) {
            response = try await client.getAllSubscriptionStatuses(transactionId: transactionId)
        } catch {
            throw SupportError(call: "Get All Subscription Statuses", error)
        }
        var groups: [SubscriptionStatusReport.Group] = []
        for item in response.value.data ?? [] {
            var subscriptions: [SubscriptionStatusReport.Subscription] = []
            for last in item.lastTransactions ?? [] {
                var subscription = SubscriptionStatusReport.Subscription(
                    status: last.status.map(SubscriptionStatusReport.statusName), statusCode: last.status?.rawValue,
                    originalTransactionId: last.originalTransactionId)
                if let jws = last.signedTransactionInfo { subscription.transaction = await checker.transaction(jws) }
                if let jws = last.signedRenewalInfo { subscription.renewal = await checker.renewalInfo(jws) }
                subscriptions.append(subscription)
            }
            groups.append(
                .init(subscriptionGroupIdentifier: item.subscriptionGroupIdentifier, subscriptions: subscriptions))
        }
        return SubscriptionStatusReport(transactionId: transactionId, environment: response.environment, groups: groups)
    }

    private func report(
        _ transactionId: String, environment: AppStoreEnvironment, pages: Int, _ signed: [String]
    ) async -> TransactionListReport {
        var checked: [CheckedTransaction] = []
        for jws in signed { checked.append(await checker.transaction(jws)) }
        return TransactionListReport(
            transactionId: transactionId, environment: environment, pages: pages, transactions: checked)
    }
}
