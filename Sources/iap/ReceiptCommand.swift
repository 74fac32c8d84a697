import AppStore
import ArgumentParser
import Foundation
import Hosting

/// `iap receipt`: decode legacy receipts locally (no trust claimed).
struct ReceiptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipt",
        abstract:
            "Decode legacy App Store receipts (app receipts and StoreKit 1 transaction receipts) without verification.",
        subcommands: [ReceiptDecodeCommand.self, ReceiptTransactionIdsCommand.self]
    )
}

/// Either kind of legacy receipt; app receipts are tried first.
enum DecodedReceipt {
    case app(AppReceipt)
    case transaction(TransactionReceipt)

    static func decode(_ base64: String) throws -> DecodedReceipt {
        do throws(ReceiptError) {
            return .app(try AppReceiptDecoder.decode(base64: base64))
        } catch let appError {
            do throws(ReceiptError) {
                return .transaction(try TransactionReceiptDecoder.decode(base64: base64))
            } catch {
                CLIInput.printError(
                    code: appError.code.rawValue,
                    message: "not an app receipt (\(appError.reason)) nor a transaction receipt (\(error.reason))")
                throw ExitCode(1)
            }
        }
    }
}

struct ReceiptDecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "decode", abstract: "Print a receipt's fields.")

    @Option(help: "Read the base64 receipt from this file instead of stdin.")
    var file: String?
    @Flag(help: "Print JSON instead of a summary.")
    var json = false

    func run() async throws {
        switch try DecodedReceipt.decode(try CLIInput.read(file: self.file)) {
        case .app(let receipt):
            if self.json { return try CLIInput.printJSON(receipt) }
            print("app receipt (not verified)")
            print("environment: \(receipt.environment ?? "-")")
            print("bundle id: \(receipt.bundleId ?? "-")")
            print("application version: \(receipt.applicationVersion ?? "-")")
            print("created: \(receipt.creationDate.map { $0.formatted(.iso8601) } ?? "-")")
            print("in-app records: \(receipt.inApp.count)")
            for record in receipt.inApp {
                let expires = record.expiresDate.map { " expires \($0.formatted(.iso8601))" } ?? ""
                print(
                    "  \(record.transactionId ?? "-") (original \(record.originalTransactionId ?? "-")) \(record.productId ?? "-") x\(record.quantity ?? 0) purchased \(record.purchaseDate.map { $0.formatted(.iso8601) } ?? "-")\(expires)"
                )
            }
        case .transaction(let receipt):
            if self.json { return try CLIInput.printJSON(receipt) }
            print("StoreKit 1 transaction receipt (not verified)")
            print("environment: \(receipt.effectiveEnvironment)")
            print("bundle id: \(receipt.bundleId ?? "-")")
            print("transaction id: \(receipt.transactionId ?? "-")")
            print("original transaction id: \(receipt.originalTransactionId ?? "-")")
            print("product id: \(receipt.productId ?? "-")")
        }
    }
}

struct ReceiptTransactionIdsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transaction-ids",
        abstract: "Print the transaction ids to look up with Apple, one per line (Xcode's placeholder \"0\" left out)."
    )

    @Option(help: "Read the base64 receipt from this file instead of stdin.")
    var file: String?

    func run() async throws {
        switch try DecodedReceipt.decode(try CLIInput.read(file: self.file)) {
        case .app(let receipt):
            for id in receipt.lookupTransactionIds { print(id) }
        case .transaction(let receipt):
            if let id = receipt.transactionId { print(id) }
        }
    }
}
