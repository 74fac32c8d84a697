import AppStore
import AppStoreModels
import ArgumentParser
import Foundation
import Hosting
import Purchases
import Redis
import SupportTools
import WorkerCommon

/// `iap support finish|app-account-token|app-transaction|extend|extend-status`: what an operator
/// asks Apple to do for a customer (issue 22 item 2; docs/operations.md, "Support: acting at
/// Apple"). Each call waits for its slot in the workers' shared Apple budget first.
struct SupportActionArguments: ParsableArguments {
    @Option(name: .customLong("bundle-id"), help: "The app (required when the deployment serves several).")
    var bundleId: String?

    @Flag(name: .long, help: "Print the answer as JSON.")
    var json = false

    /// Runs `body` with Apple's actions over verify's settings and the shared gate in REDIS_URL.
    func run<Answer: Encodable>(
        _ body: (AppleServerActions, SupportSettings) async throws -> Answer, text: (Answer) -> String
    ) async throws {
        let json = self.json
        try await SupportRun.run(json: json) {
            let settings = try await SupportRun.settings(app: bundleId)
            let logger = CLILogging.logger("iap.support")
            let redis = try settings.redisClient(logger: logger)
            let answer: Answer
            do {
                let actions = try settings.serverActions(redis: redis, logger: logger) { delay in
                    if !json {
                        FileHandle.standardError.write(
                            Data("iap support: waiting \(delay) for a slot of Apple's shared budget\n".utf8))
                    }
                }
                answer = try await body(actions, settings)
            } catch {
                await redis.shutdown()
                throw error
            }
            await redis.shutdown()
            try SupportRun.print(answer, json: json) { text(answer) }
        }
    }
}

struct SupportFinishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "finish",
        abstract: "Finish Transaction: tell Apple the purchase was delivered, as the app's finish() would.")

    @Argument(help: "The transaction id.") var transactionId: String
    @OptionGroup var options: SupportActionArguments

    func run() async throws {
        try await options.run(
            { actions, _ in try await actions.finish(transactionId: transactionId) },
            text: {
                "finished \($0.transactionId) (\($0.environment.rawValue))"
            })
    }
}

struct SupportAppAccountTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-account-token",
        abstract: "Set App Account Token: the purchase line and its later renewals carry the token.",
        discussion: """
            --token sets a UUID as given; --user-id sets the token IAP_TOKEN_SCHEME derives from the user (the \
            token the app would have sent). Not for family-shared purchases (Apple refuses them, 4000185).
            """)

    @Argument(help: "The purchase's originalTransactionId.") var originalTransactionId: String
    @Option(help: "The token, a UUID.") var token: String?
    @Option(name: .customLong("user-id"), help: "The user whose token IAP_TOKEN_SCHEME derives.") var userId: String?
    @OptionGroup var options: SupportActionArguments

    func validate() throws {
        guard (token == nil) != (userId == nil) else { throw ValidationError("give one of --token and --user-id") }
        if let token, UUID(uuidString: token) == nil { throw ValidationError("--token is a UUID") }
    }

    func run() async throws {
        try await options.run(
            { actions, settings in
                let uuid: UUID
                if let token {
                    uuid = UUID(uuidString: token)!
                } else {
                    guard let scheme = settings.tokenScheme else {
                        throw SupportError(.tokenSchemeRequired, "--user-id needs IAP_TOKEN_SCHEME")
                    }
                    guard
                        let derived = scheme.token(forUserId: userId!, bundleId: settings.app.bundleId)
                            .flatMap(UUID.init(uuidString:))
                    else {
                        throw SupportError(
                            .tokenSchemeRequired, "\(scheme.rawValue) cannot encode user id '\(userId!)'")
                    }
                    uuid = derived
                }
                return try await actions.setAppAccountToken(originalTransactionId: originalTransactionId, token: uuid)
            },
            text: {
                "appAccountToken \($0.appAccountToken ?? "") set on \($0.transactionId) (\($0.environment.rawValue))"
            })
    }
}

struct SupportAppTransactionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-transaction",
        abstract: "Get App Transaction Info: the customer's purchase of the app itself, verified.")

    @Argument(help: "Any transaction id of the customer, or its appTransactionId.") var transactionId: String
    @OptionGroup var options: SupportActionArguments

    func run() async throws {
        try await options.run(
            { actions, _ in try await actions.appTransaction(anyTransactionId: transactionId) },
            text: {
                checked in
                let app = checked.appTransaction
                return """
                    \(checked.verification) app transaction \(app?.appTransactionId ?? "-") of \(app?.bundleId ?? "-") \
                    (\(app?.receiptType?.rawValue ?? "-")): bought \(app?.originalPurchaseDate.map { "\($0)" } ?? "-"), \
                    first version \(app?.originalApplicationVersion ?? "-")
                    """
            })
    }
}

struct SupportExtendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extend",
        abstract: "Extend a subscription's renewal date, or every active subscriber's of a product (--product).",
        discussion: """
            One subscription: `iap support extend ORIGINAL_TRANSACTION_ID --days 3 --reason service-issue`. Every \
            active subscriber of a product (Apple does it in the background; `iap support extend-status` follows \
            it): `iap support extend --product vip_monthly --days 3 --reason service-issue [--storefront USA ...]`. \
            1–90 days, at most twice a year per subscription. --request-id makes a retried request the same \
            request (default: a new UUID, printed).
            """)

    enum Reason: String, ExpressibleByArgument, CaseIterable {
        case undeclared
        case customerSatisfaction = "customer-satisfaction"
        case other
        case serviceIssue = "service-issue"

        var code: ExtendReasonCode {
            switch self {
            case .undeclared: .undeclared
            case .customerSatisfaction: .customerSatisfaction
            case .other: .other
            case .serviceIssue: .serviceIssueOrOutage
            }
        }
    }

    @Argument(help: "The subscription's originalTransactionId (not with --product).") var originalTransactionId: String?
    @Option(help: "Every active subscriber of this product instead.") var product: String?
    @Option(help: "Days to add, 1–90.") var days: Int
    @Option(help: "Why: \(Reason.allCases.map(\.rawValue).joined(separator: ", ")).") var reason: Reason
    @Option(name: .customLong("request-id"), help: "The request's identifier (default: a new UUID).")
    var requestId: String = UUID().uuidString.lowercased()
    @Option(name: .customLong("storefront"), help: "With --product: only these storefronts (ISO 3166-1 alpha-3).")
    var storefronts: [String] = []
    @OptionGroup var options: SupportActionArguments

    func validate() throws {
        guard (originalTransactionId == nil) != (product == nil) else {
            throw ValidationError("give an originalTransactionId or --product")
        }
        guard (1...90).contains(days) else { throw ValidationError("--days is 1–90") }
        guard storefronts.isEmpty || product != nil else { throw ValidationError("--storefront goes with --product") }
    }

    struct Answer: Encodable {
        var requestIdentifier: String
        var originalTransactionId: String?
        var productId: String?
        var success: Bool?
        var effectiveDate: String?
    }

    func run() async throws {
        try await options.run(
            { actions, _ in
                if let product {
                    _ = try await actions.extendAll(
                        MassExtendRenewalDateRequest(
                            productId: product, extendByDays: days, extendReasonCode: reason.code,
                            requestIdentifier: requestId,
                            storefrontCountryCodes: storefronts.isEmpty ? nil : storefronts))
                    return Answer(requestIdentifier: requestId, productId: product)
                }
                let done = try await actions.extend(
                    originalTransactionId: originalTransactionId!,
                    ExtendRenewalDateRequest(
                        extendByDays: days, extendReasonCode: reason.code, requestIdentifier: requestId))
                return Answer(
                    requestIdentifier: requestId, originalTransactionId: done.originalTransactionId,
                    success: done.success, effectiveDate: done.effectiveDate.map { "\($0)" })
            },
            text: { answer in
                if let product = answer.productId {
                    return "extension of every active \(product) subscriber requested: "
                        + "iap support extend-status --product \(product) --request-id \(answer.requestIdentifier)"
                }
                return "\(answer.originalTransactionId ?? "-") extended: renews \(answer.effectiveDate ?? "-")"
            })
    }
}

struct SupportExtendStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extend-status", abstract: "How a mass extension (iap support extend --product) went.")

    @Option(help: "The product the extension was for.") var product: String
    @Option(name: .customLong("request-id"), help: "The request's identifier.") var requestId: String
    @OptionGroup var options: SupportActionArguments

    func run() async throws {
        let lookUp = { (actions: AppleServerActions, _: SupportSettings) in
            try await actions.extensionStatus(requestIdentifier: requestId, productId: product)
        }
        try await options.run(
            lookUp,
            text: { status in
                "\(status.complete == true ? "complete" : "in progress"): \(status.succeededCount ?? 0) extended, "
                    + "\(status.failedCount ?? 0) failed"
            })
    }
}
