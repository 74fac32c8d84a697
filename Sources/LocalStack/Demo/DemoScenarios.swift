import AppStore
import AppStoreModels
import Contracts
import Foundation
import Purchases
import SupportTools

/// The demo's mixed batch (issue 4): every product type through StoreKit 2 and StoreKit 1,
/// bare transaction ids, notifications, a refund, a renewal, an expiry, a family revocation,
/// duplicates from both StoreKit paths, a transaction before its order, an order whose
/// purchase never comes, a forged JWS, a receipt replayed by another user, a userId hint that
/// loses to the signed token, sandbox purchases,
/// a notification for a purchase no backend reported, a second app and one the deployment does
/// not serve, and malformed events.
extension DemoScenario {
    /// The second app the demo's stack serves (`LocalStackConfiguration.otherApps`, D57).
    public static let secondApp = "com.example.puzzle"

    public static let catalogue: [DemoScenario] = [
        DemoScenario("StoreKit 2 consumable, order first (matched by appAccountToken)") { context in
            let user = context.user("alice")
            let token = UUID().uuidString.lowercased()
            let orderId = "order-\(UUID().uuidString.prefix(8))"
            try await context.publish(
                OrderEvent(
                    orderId: orderId, userId: user, productId: "gems_100", bundleId: context.bundleId,
                    appAccountToken: token, quantity: 3))
            let purchase = try await context.simulator.purchase(
                productId: "gems_100", type: "Consumable", bundleId: context.bundleId, quantity: 3,
                appAccountToken: token)
            try await context.publish(
                context.purchaseEvent(
                    .signedTransaction(purchase.signedTransaction), user: user, appAccountToken: token))
            return [
                .entitlement(
                    transactionId: purchase.transactionId, action: "grant", userId: user, matchedBy: "appAccountToken")
            ]
        },
        DemoScenario("StoreKit 2 non-consumable (matched by user)") { context in
            let user = context.user("bob")
            let purchase = try await context.simulator.purchase(
                productId: "remove_ads", type: "Non-Consumable", bundleId: context.bundleId)
            try await context.publish(context.purchaseEvent(.signedTransaction(purchase.signedTransaction), user: user))
            return [
                .entitlement(transactionId: purchase.transactionId, action: "grant", userId: user, matchedBy: "user")
            ]
        },
        DemoScenario("StoreKit 1 app receipt, consumable") { context in
            let user = context.user("carol")
            let purchase = try await context.simulator.purchase(
                productId: "gems_500", type: "Consumable", bundleId: context.bundleId)
            try await context.publish(context.purchaseEvent(.appReceipt(purchase.appReceipt), user: user))
            return [.entitlement(transactionId: purchase.transactionId, action: "grant", userId: user)]
        },
        DemoScenario("StoreKit 1 transaction receipt, non-renewing subscription") { context in
            let user = context.user("dave")
            let purchase = try await context.simulator.purchase(
                productId: "season_pass", type: "Non-Renewing Subscription", bundleId: context.bundleId)
            try await context.publish(
                context.purchaseEvent(.transactionReceipt(purchase.transactionReceipt), user: user))
            return [.entitlement(transactionId: purchase.transactionId, action: "grant", userId: user)]
        },
        DemoScenario("bare transaction id (Get Transaction Info)") { context in
            let user = context.user("erin")
            let purchase = try await context.simulator.purchase(
                productId: "gems_100", type: "Consumable", bundleId: context.bundleId)
            try await context.publish(context.purchaseEvent(.transactionId(purchase.transactionId), user: user))
            return [.entitlement(transactionId: purchase.transactionId, action: "grant", userId: user)]
        },
        DemoScenario("auto-renewable subscription, then a renewal (DID_RENEW)") { context in
            let user = context.user("frank")
            let purchase = try await context.simulator.purchase(
                productId: "vip_monthly", type: "Auto-Renewable Subscription", bundleId: context.bundleId)
            try await context.notify(purchase.signedPayload ?? "")
            try await context.publish(context.purchaseEvent(.signedTransaction(purchase.signedTransaction), user: user))
            try await context.waitFor(
                .entitlement(transactionId: purchase.transactionId, action: "grant", userId: user))
            let renewal = try await context.simulator.renew(originalTransactionId: purchase.originalTransactionId)
            try await context.notify(renewal.signedPayload ?? "")
            return [
                .entitlement(transactionId: purchase.transactionId, action: "grant", userId: user),
                .entitlement(
                    transactionId: renewal.transactionId, action: "renew", userId: user, matchedBy: "ownership"),
            ]
        },
        DemoScenario("a renewal whose notification Apple could not deliver, recovered by iap-reconcile") { context in
            let user = context.user("lena")
            let purchase = try await context.simulator.purchase(
                productId: "vip_monthly", type: "Auto-Renewable Subscription", bundleId: context.bundleId)
            try await context.publish(context.purchaseEvent(.signedTransaction(purchase.signedTransaction), user: user))
            try await context.waitFor(
                .entitlement(transactionId: purchase.transactionId, action: "grant", userId: user))
            // Every delivery attempt fails: the DID_RENEW is only in Apple's notification history.
            let renewal = try await context.simulator.renew(
                originalTransactionId: purchase.originalTransactionId, deliver: false)
            return [
                .entitlement(transactionId: purchase.transactionId, action: "grant", userId: user),
                .entitlement(
                    transactionId: renewal.transactionId, action: "renew", userId: user, matchedBy: "ownership"),
            ]
        },
        DemoScenario("subscription expires (EXPIRED)") { context in
            let user = context.user("gina")
            let purchase = try await context.simulator.purchase(
                productId: "vip_weekly", type: "Auto-Renewable Subscription", bundleId: context.bundleId)
            try await context.publish(context.purchaseEvent(.signedTransaction(purchase.signedTransaction), user: user))
            try await context.waitFor(
                .entitlement(transactionId: purchase.transactionId, action: "grant", userId: user))
            try await context.notify(
                try await context.simulator.expire(originalTransactionId: purchase.originalTransactionId).signedPayload)
            return [
                .entitlement(transactionId: purchase.transactionId, action: "grant", userId: user),
                .entitlement(transactionId: purchase.transactionId, action: "expire", userId: user),
            ]
        },
        DemoScenario("billing fails: a grace period keeps access, its end cuts it, recovery grants again") {
            context in
            let user = context.user("gus")
            let purchase = try await context.simulator.purchase(
                productId: "vip_monthly", type: "Auto-Renewable Subscription", bundleId: context.bundleId)
            try await context.publish(context.purchaseEvent(.signedTransaction(purchase.signedTransaction), user: user))
            try await context.waitFor(
                .entitlement(transactionId: purchase.transactionId, action: "grant", userId: user))
            let subscription = purchase.originalTransactionId
            try await context.notify(
                try await context.simulator.failRenewal(originalTransactionId: subscription, gracePeriodSeconds: 3600)
                    .signedPayload)
            try await context.waitFor(
                .entitlement(transactionId: purchase.transactionId, action: "renew", userId: user))
            try await context.notify(
                try await context.simulator.endGracePeriod(originalTransactionId: subscription).signedPayload)
            try await context.waitFor(
                .entitlement(transactionId: purchase.transactionId, action: "expire", userId: user))
            let recovery = try await context.simulator.renew(originalTransactionId: subscription)
            try await context.notify(recovery.signedPayload ?? "")
            return [
                .entitlement(transactionId: purchase.transactionId, action: "grant", userId: user),
                .entitlement(transactionId: purchase.transactionId, action: "renew", userId: user),
                .entitlement(transactionId: purchase.transactionId, action: "expire", userId: user),
                .entitlement(transactionId: recovery.transactionId, action: "grant", userId: user),
            ]
        },
        DemoScenario("refund (REFUND revokes the grant)") { context in
            let user = context.user("hank")
            let purchase = try await context.simulator.purchase(
                productId: "gems_1000", type: "Consumable", bundleId: context.bundleId)
            try await context.publish(context.purchaseEvent(.signedTransaction(purchase.signedTransaction), user: user))
            try await context.waitFor(
                .entitlement(transactionId: purchase.transactionId, action: "grant", userId: user))
            try await context.notify(
                try await context.simulator.refund(transactionId: purchase.transactionId).signedPayload)
            return [
                .entitlement(transactionId: purchase.transactionId, action: "grant", userId: user),
                .entitlement(transactionId: purchase.transactionId, action: "revoke", userId: user),
            ]
        },
        DemoScenario("Family Sharing revocation (REVOKE)") { context in
            let user = context.user("iris")
            let purchase = try await context.simulator.purchase(
                productId: "premium_family", type: "Non-Consumable", bundleId: context.bundleId, familyShared: true)
            try await context.publish(context.purchaseEvent(.signedTransaction(purchase.signedTransaction), user: user))
            try await context.waitFor(
                .entitlement(transactionId: purchase.transactionId, action: "grant", userId: user))
            try await context.notify(
                try await context.simulator.revoke(transactionId: purchase.transactionId).signedPayload)
            return [
                .entitlement(transactionId: purchase.transactionId, action: "grant", userId: user),
                .entitlement(transactionId: purchase.transactionId, action: "revoke", userId: user),
            ]
        },
        DemoScenario("the same purchase from StoreKit 2, StoreKit 1 and a notification: granted once") { context in
            let user = context.user("jack")
            let purchase = try await context.simulator.purchase(
                productId: "starter_pack", type: "Non-Consumable", bundleId: context.bundleId)
            try await context.publish(
                context.purchaseEvent(.transactionReceipt(purchase.transactionReceipt), user: user))
            try await context.publish(context.purchaseEvent(.signedTransaction(purchase.signedTransaction), user: user))
            try await context.notify(purchase.signedPayload ?? "")
            try await context.publish(context.purchaseEvent(.signedTransaction(purchase.signedTransaction), user: user))
            return [.entitlement(transactionId: purchase.transactionId, action: "grant", userId: user)]
        },
        DemoScenario("transaction before its order (released when the order arrives)") { context in
            let user = context.user("kate")
            let token = UUID().uuidString.lowercased()
            let purchase = try await context.simulator.purchase(
                productId: "gems_100", type: "Consumable", bundleId: context.bundleId, appAccountToken: token)
            try await context.publish(
                context.purchaseEvent(
                    .signedTransaction(purchase.signedTransaction), user: user, appAccountToken: token))
            try await Task.sleep(for: .seconds(2))
            try await context.publish(
                OrderEvent(
                    orderId: "order-\(UUID().uuidString.prefix(8))", userId: user, productId: "gems_100",
                    bundleId: context.bundleId, appAccountToken: token))
            return [
                .entitlement(
                    transactionId: purchase.transactionId, action: "grant", userId: user, matchedBy: "appAccountToken")
            ]
        },
        DemoScenario("an order whose purchase never comes") { context in
            let user = context.user("liam")
            try await context.publish(
                OrderEvent(
                    orderId: "order-\(UUID().uuidString.prefix(8))", userId: user, productId: "gems_100",
                    bundleId: context.bundleId,
                    appAccountToken: UUID().uuidString.lowercased()))
            return [.nothingFor(userId: user)]
        },
        DemoScenario("a forged JWS (payload altered)") { context in
            let user = context.user("mallory")
            let purchase = try await context.simulator.purchase(
                productId: "gems_100", type: "Consumable", bundleId: context.bundleId)
            let event = context.purchaseEvent(.signedTransaction(Self.forge(purchase.signedTransaction)), user: user)
            try await context.publish(event)
            return [.rejected(eventId: event.eventId, reason: "invalid_signature"), .nothingFor(userId: user)]
        },
        DemoScenario("a receipt replayed by another user") { context in
            let owner = context.user("nina")
            let thief = context.user("oscar")
            let purchase = try await context.simulator.purchase(
                productId: "remove_ads", type: "Non-Consumable", bundleId: context.bundleId)
            try await context.publish(
                context.purchaseEvent(.signedTransaction(purchase.signedTransaction), user: owner))
            try await context.waitFor(
                .entitlement(transactionId: purchase.transactionId, action: "grant", userId: owner))
            let replay = context.purchaseEvent(.transactionReceipt(purchase.transactionReceipt), user: thief)
            try await context.publish(replay)
            return [
                .entitlement(transactionId: purchase.transactionId, action: "grant", userId: owner),
                .rejected(eventId: replay.eventId, reason: "ownership_conflict"), .nothingFor(userId: thief),
            ]
        },
        DemoScenario("a userId hint that loses to Apple's signed appAccountToken (no effect, and why)") { context in
            let owner = context.user("paula")
            let hinted = context.user("quentin")
            let token = UUID().uuidString.lowercased()
            try await context.publish(
                OrderEvent(
                    orderId: "order-\(UUID().uuidString.prefix(8))", userId: owner, productId: "gems_500",
                    bundleId: context.bundleId, appAccountToken: token))
            let purchase = try await context.simulator.purchase(
                productId: "gems_500", type: "Consumable", bundleId: context.bundleId, appAccountToken: token)
            try await context.publish(
                context.purchaseEvent(
                    .signedTransaction(purchase.signedTransaction), user: owner, appAccountToken: token))
            let granted = Expectation.entitlement(
                transactionId: purchase.transactionId, action: "grant", userId: owner, matchedBy: "appAccountToken")
            try await context.waitFor(granted)
            // Another backend session names another user for the same signed purchase.
            try await context.publish(
                context.purchaseEvent(.signedTransaction(purchase.signedTransaction), user: hinted))
            return [granted, .nothingFor(userId: hinted)]
        },
        DemoScenario("sandbox purchase (App Review) accepted in production") { context in
            let user = context.user("reviewer")
            let purchase = try await context.simulator.purchase(
                productId: "gems_100", type: "Consumable", bundleId: context.bundleId, environment: "Sandbox")
            try await context.publish(context.purchaseEvent(.signedTransaction(purchase.signedTransaction), user: user))
            return [
                .entitlement(
                    transactionId: purchase.transactionId, action: "grant", userId: user, environment: "Sandbox")
            ]
        },
        DemoScenario("a sandbox receipt by bare id (production says 4040010, sandbox answers)") { context in
            let user = context.user("tester")
            let purchase = try await context.simulator.purchase(
                productId: "gems_500", type: "Consumable", bundleId: context.bundleId, environment: "Sandbox")
            try await context.publish(context.purchaseEvent(.transactionId(purchase.transactionId), user: user))
            return [
                .entitlement(
                    transactionId: purchase.transactionId, action: "grant", userId: user, environment: "Sandbox")
            ]
        },
        DemoScenario("a second app of the same deployment (its own Apple token, gate and customers)") { context in
            guard let app = context.secondApp else {
                throw LocalStackError("the stack serves one app; the demo runs with a second (otherApps)")
            }
            let user = context.user("sam")
            let hints = try await context.simulator.purchase(productId: "hints_10", type: "Consumable", bundleId: app)
            try await context.publish(
                context.purchaseEvent(.transactionId(hints.transactionId), user: user, app: app))
            let pass = try await context.simulator.purchase(
                productId: "puzzle_pass", type: "Non-Consumable", bundleId: app)
            try await context.publish(
                context.purchaseEvent(.signedTransaction(pass.signedTransaction), user: user, app: app))
            return [
                .entitlement(transactionId: hints.transactionId, action: "grant", userId: user),
                .entitlement(transactionId: pass.transactionId, action: "grant", userId: user),
            ]
        },
        DemoScenario(
            "the app's own purchase: its AppTransaction from the app and from Get App Transaction Info, granted once"
        ) {
            context in
            let user = context.user("ursula")
            // A customer of their own (a token of their own), so the AppTransaction is theirs alone.
            let purchase = try await context.simulator.purchase(
                productId: "gems_100", type: "Consumable", bundleId: context.bundleId,
                appAccountToken: UUID().uuidString.lowercased())
            // The app uploads AppTransaction.shared; the backend also asks Apple for it.
            let fromApp = try await context.simulator.appTransaction(ofTransactionId: purchase.transactionId)
            let fromApple = try await context.apple.signedAppTransaction(anyTransactionId: purchase.transactionId)
            let appTransactionId = try Self.claim("appTransactionId", of: fromApp)
            guard try Self.claim("appTransactionId", of: fromApple) == appTransactionId else {
                throw LocalStackError("Get App Transaction Info answered another customer's AppTransaction")
            }
            try await context.publish(context.purchaseEvent(.appTransaction(fromApp), user: user))
            try await context.publish(context.purchaseEvent(.appTransaction(fromApple), user: user))
            return [
                .entitlement(
                    transactionId: TransactionDetails.appPurchaseId(appTransactionId: appTransactionId),
                    action: "grant", userId: user)
            ]
        },
        DemoScenario("support sets an app account token on a purchase matched by user; the renewal carries it") {
            context in
            let user = context.user("tess")
            let purchase = try await context.simulator.purchase(
                productId: "vip_weekly", type: "Auto-Renewable Subscription", bundleId: context.bundleId)
            try await context.publish(context.purchaseEvent(.signedTransaction(purchase.signedTransaction), user: user))
            let granted = Expectation.entitlement(
                transactionId: purchase.transactionId, action: "grant", userId: user, matchedBy: "user")
            try await context.waitFor(granted)
            let token = UUID()
            _ = try await context.apple.setAppAccountToken(
                originalTransactionId: purchase.originalTransactionId, token: token)
            let renewal = try await context.simulator.renew(originalTransactionId: purchase.originalTransactionId)
            guard try Self.claim("appAccountToken", of: renewal.signedTransaction) == token.uuidString.lowercased()
            else {
                throw LocalStackError("the renewal does not carry the token Set App Account Token set")
            }
            try await context.notify(renewal.signedPayload ?? "")
            return [
                granted,
                .entitlement(
                    transactionId: renewal.transactionId, action: "renew", userId: user, matchedBy: "ownership"),
            ]
        },
        DemoScenario("an outage: one subscriber's renewal date extended, then every subscriber's of a product") {
            context in
            let vera = context.user("vera")
            let walt = context.user("walt")
            // Only this scenario buys these two products: each subscriber is extended once.
            let monthly = try await context.simulator.purchase(
                productId: "club_monthly", type: "Auto-Renewable Subscription", bundleId: context.bundleId)
            let yearly = try await context.simulator.purchase(
                productId: "club_yearly", type: "Auto-Renewable Subscription", bundleId: context.bundleId)
            try await context.publish(
                context.purchaseEvent(.signedTransaction(monthly.signedTransaction), user: vera))
            try await context.publish(context.purchaseEvent(.signedTransaction(yearly.signedTransaction), user: walt))
            try await context.waitFor(.entitlement(transactionId: monthly.transactionId, action: "grant", userId: vera))
            try await context.waitFor(.entitlement(transactionId: yearly.transactionId, action: "grant", userId: walt))
            // Extend a Subscription Renewal Date: Apple sends RENEWAL_EXTENDED, grant moves the end.
            _ = try await context.apple.extend(
                originalTransactionId: monthly.originalTransactionId,
                ExtendRenewalDateRequest(
                    extendByDays: 3, extendReasonCode: .serviceIssueOrOutage,
                    requestIdentifier: "outage-\(context.runId)"))
            // Every active subscriber of club_yearly, and the request's status.
            let request = "outage-all-\(context.runId)"
            _ = try await context.apple.extendAll(
                MassExtendRenewalDateRequest(
                    productId: "club_yearly", extendByDays: 1, extendReasonCode: .serviceIssueOrOutage,
                    requestIdentifier: request))
            let status = try await context.apple.extensionStatus(requestIdentifier: request, productId: "club_yearly")
            guard status.complete == true, status.succeededCount == 1 else {
                throw LocalStackError("the mass extension did not extend its one subscriber: \(status)")
            }
            return [
                .entitlement(transactionId: monthly.transactionId, action: "grant", userId: vera),
                .entitlement(transactionId: monthly.transactionId, action: "renew", userId: vera),
                .entitlement(transactionId: yearly.transactionId, action: "grant", userId: walt),
                .entitlement(transactionId: yearly.transactionId, action: "renew", userId: walt),
            ]
        },
        DemoScenario("an app this deployment does not serve (unknown_app)") { context in
            let user = context.user("stranger")
            let app = "com.example.stranger"
            let purchase = try await context.simulator.purchase(
                productId: "gems_100", type: "Consumable", bundleId: app)
            let event = context.purchaseEvent(.signedTransaction(purchase.signedTransaction), user: user, app: app)
            try await context.publish(event)
            return [.rejected(eventId: event.eventId, reason: "unknown_app"), .nothingFor(userId: user)]
        },
        DemoScenario("a notification for a purchase no backend reported") { context in
            let purchase = try await context.simulator.purchase(
                productId: "gems_100", type: "Consumable", bundleId: context.bundleId)
            try await context.notify(purchase.signedPayload ?? "")
            return [.unmatched(transactionId: purchase.transactionId)]
        },
        DemoScenario("malformed events (not JSON, unknown schema, missing field)") { context in
            let user = context.user("quinn")
            try await context.publishRaw(Array("{not json".utf8), user: user)
            let unknown = "evt-unknown-\(context.runId)"
            try await context.publishRaw(
                Array(#"{"schema":"iap.purchase.v9","eventId":"\#(unknown)"}"#.utf8), user: user)
            let missing = "evt-missing-\(context.runId)"
            try await context.publishRaw(
                Array(#"{"schema":"iap.purchase.v1","eventId":"\#(missing)","bundleId":"x","transactionId":"1"}"#.utf8),
                user: user)
            return [
                .rejected(eventId: unknown, reason: "unsupported_schema"),
                .rejected(eventId: missing, reason: "malformed_event"),
            ]
        },
    ]

    /// A string claim of a JWS's payload, unverified (what the scenario expects verify to read).
    static func claim(_ name: String, of jws: String) throws -> String {
        let payload = try JSONSerialization.jsonObject(with: Data(try UnverifiedJWS(jws).payloadJSON))
        guard let value = (payload as? [String: Any])?[name] as? String else {
            throw LocalStackError("the JWS has no \(name)")
        }
        return value
    }

    /// A JWS whose payload was edited after signing (the price of a forgery: its signature no
    /// longer matches).
    static func forge(_ jws: String) -> String {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { return jws + "x" }
        var payload = parts[1]
        // Flip one base64url character in the middle of the payload.
        let index = payload.index(payload.startIndex, offsetBy: payload.count / 2)
        payload.replaceSubrange(index...index, with: payload[index] == "A" ? "B" : "A")
        return [parts[0], payload, parts[2]].joined(separator: ".")
    }
}
