import AppStore
import Foundation

/// The local receipt decoders must refuse malformed receipts with a `ReceiptError`, never trap.
/// Both take what a publisher sends, unverified.
///
/// The input is used as the DER/BER of a PKCS#7 app receipt (the BER reader and the attribute
/// walk) and, base64-encoded as a client would send it, as a StoreKit 1 transaction receipt
/// (the old-style plist parser, outer and `purchase-info`). Mutating the decoded bytes rather
/// than base64 text keeps the fuzzer working on the structure.
/// True when either decoder accepted the input.
@discardableResult
public func checkReceipt(_ bytes: [UInt8]) -> Bool {
    let app = (try? AppReceiptDecoder.decode(der: bytes)) != nil
    let transaction = (try? TransactionReceiptDecoder.decode(base64: Data(bytes).base64EncodedString())) != nil
    return app || transaction
}
