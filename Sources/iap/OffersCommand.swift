import AppStore
public import ArgumentParser
import Foundation
import Hosting

/// `iap offers sign …`: the signatures StoreKit asks an app's server for (``OfferSigner``),
/// printed as JSON. The key is read from a file and never printed.
struct OffersCommand: ParsableCommand {
    typealias Kind = OfferSignatureRequest.Kind

    static let configuration = CommandConfiguration(
        commandName: "offers",
        abstract: "Sign StoreKit offers and requests with the app's In-App Purchase key (docs/offers.md).",
        subcommands: [Sign.self]
    )

    struct Sign: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a signature: promotional (StoreKit 1), promotional-jws, introductory-eligibility or "
                + "advanced-commerce (StoreKit 2).")

        @Argument(help: "What to sign: \(Kind.allCases.map(\.rawValue).joined(separator: ", ")).") var kind: Kind
        @Option(help: "The In-App Purchase key (.p8, PEM).") var keyFile: String
        @Option(help: "The key's id (App Store Connect).") var keyId: String
        @Option(help: "The key's issuer id (App Store Connect); the StoreKit 2 kinds need it.") var issuerId: String?
        @Option(help: "The app's bundle id.") var bundleId: String
        @Option(help: "The product (all but advanced-commerce).") var productId: String?
        @Option(help: "The promotional offer's id (promotional, promotional-jws).") var offerId: String?
        @Option(help: "The app's applicationUsername (promotional; default empty).") var applicationUsername = ""
        @Option(
            help: "One of the customer's transactions or its appTransactionId (required by introductory-eligibility)."
        )
        var transactionId: String?
        @Option(help: "Whether the customer may take the introductory offer (introductory-eligibility).")
        var allowIntroductoryOffer: Bool?
        @Option(help: "A file holding the Advanced Commerce request's JSON (advanced-commerce).") var requestFile:
            String?

        func validate() throws {
            switch kind {
            case .promotional, .promotionalJWS:
                guard productId != nil, offerId != nil else {
                    throw ValidationError("\(kind.rawValue) needs --product-id and --offer-id")
                }
            case .introductoryEligibility:
                guard productId != nil, transactionId != nil, allowIntroductoryOffer != nil else {
                    throw ValidationError(
                        "introductory-eligibility needs --product-id, --transaction-id and --allow-introductory-offer")
                }
            case .advancedCommerce:
                guard requestFile != nil else { throw ValidationError("advanced-commerce needs --request-file") }
            }
            if kind.needsIssuer, issuerId == nil {
                throw ValidationError("\(kind.rawValue) needs --issuer-id (a StoreKit 2 JWS names the key's issuer)")
            }
        }

        func run() throws {
            let pem = try String(contentsOfFile: keyFile, encoding: .utf8)
            let signer = try OfferSigner(privateKeyPEM: pem, keyId: keyId, issuerId: issuerId, bundleId: bundleId)
            try CLIInput.printJSON(try signer.sign(try request()))
        }

        /// The flags as the request ``validate()`` made sure they form.
        private func request() throws -> OfferSignatureRequest {
            switch kind {
            case .promotional:
                .promotional(productId: productId!, offerId: offerId!, applicationUsername: applicationUsername)
            case .promotionalJWS:
                .promotionalJWS(productId: productId!, offerId: offerId!, transactionId: transactionId)
            case .introductoryEligibility:
                .introductoryEligibility(
                    productId: productId!, allowIntroductoryOffer: allowIntroductoryOffer!,
                    transactionId: transactionId!)
            case .advancedCommerce:
                .advancedCommerce(request: Array(try CLIInput.read(file: requestFile!).utf8))
            }
        }
    }
}

/// The kind as `iap offers sign` takes it: `promotional`, `promotional-jws`, …
extension OfferSignatureRequest.Kind: ExpressibleByArgument {}
