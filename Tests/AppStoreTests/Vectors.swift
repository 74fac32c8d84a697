import Foundation

/// Access to the real Apple-signed vectors and their manifest (Tests/AppStoreTests/Vectors).
enum Vectors {
    static let directory: URL = {
        guard let url = Bundle.module.url(forResource: "Vectors", withExtension: nil) else {
            fatalError("Vectors resource directory missing from the test bundle")
        }
        return url
    }()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: self.directory.appendingPathComponent(path), encoding: .utf8)
    }

    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: self.directory.appendingPathComponent(path))
    }

    /// MANIFEST.json's `files` entries keyed by path (loaded per call: `[String: Any]` is not
    /// `Sendable`, so it cannot live in a static).
    static func manifest() -> [String: [String: Any]] {
        guard let data = try? Self.data("MANIFEST.json"),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let files = object["files"] as? [[String: Any]]
        else { return [:] }
        var byPath: [String: [String: Any]] = [:]
        for file in files {
            if let path = file["path"] as? String { byPath[path] = file }
        }
        return byPath
    }

    static let jwsFiles = [
        "jws/sandbox-consumable-transaction.jws", "jws/sandbox-renewal-info.jws",
        "jws/production-test-notification.jws",
    ]
    static let appReceiptFiles = [
        "receipts/app-receipt-production.b64", "receipts/app-receipt-sandbox-g5.b64",
        "receipts/app-receipt-sandbox-legacy.b64", "receipts/app-receipt-xcode-with-purchases.b64",
        "receipts/app-receipt-unified-sandbox.b64",
    ]
    static let transactionReceiptFiles = [
        "receipts/transaction-receipt-production.b64", "receipts/transaction-receipt-sandbox.b64",
    ]

    static func expected(_ path: String) -> [String: Any] {
        self.manifest()[path]?["expected"] as? [String: Any] ?? [:]
    }

    static func entry(_ path: String) -> [String: Any] {
        self.manifest()[path] ?? [:]
    }
}
