public import AppStore
import Foundation

/// The In-App Purchase keys `iap-api` signs offers with, one per app, as its offer keys file
/// (`IAP_OFFER_KEYS_FILE`) lists them:
///
/// ```
/// # bundle id         key id       issuer id (- for none)                  key file (.p8)
/// com.example.game    K1A2B3C4D5   57246542-96fe-1a63-e053-0824d011072a    AuthKey_K1A2B3C4D5.p8
/// ```
///
/// A relative key file is found next to the list, so one Secret mounted as a directory holds
/// both. Every key is read and parsed at start: a bad line or key stops `iap-api` with the line's
/// number and the file's path, never with anything read from the key.
public struct OfferKeyring: Sendable {
    let signers: [String: OfferSigner]

    public static let empty = OfferKeyring(signers: [:])

    init(signers: [String: OfferSigner]) {
        self.signers = signers
    }

    /// The signer of `bundleId`'s key, if the file lists one.
    public func signer(bundleId: String) -> OfferSigner? { signers[bundleId] }

    /// The apps with a key, for the start-up log.
    public var bundleIds: [String] { signers.keys.sorted() }

    public static func load(path: String) throws(OfferKeyringError) -> OfferKeyring {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw OfferKeyringError("\(path): \(error.localizedDescription)")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return try parse(text, source: path) { file throws(OfferKeyringError) in
            let resolved = file.hasPrefix("/") ? file : directory + "/" + file
            do {
                return try String(contentsOfFile: resolved, encoding: .utf8)
            } catch {
                throw OfferKeyringError("\(resolved): \(error.localizedDescription)")
            }
        }
    }

    /// Parses a list, reading each key file through `readKey`.
    public static func parse(
        _ text: String, source: String = "offer keys file",
        readKey: (String) throws(OfferKeyringError) -> String
    ) throws(OfferKeyringError) -> OfferKeyring {
        var signers: [String: OfferSigner] = [:]
        for (at, fields) in KeysFileLines.fields(of: text, source: source) {
            guard fields.count == 4 else {
                throw OfferKeyringError(
                    "\(at): expected `<bundleId> <keyId> <issuerId|-> <key file>`, found \(fields.count) fields")
            }
            let bundleId = fields[0]
            guard signers[bundleId] == nil else {
                throw OfferKeyringError("\(at): app \(bundleId) has a key already; one key per app")
            }
            let pem = try readKey(fields[3])
            do {
                signers[bundleId] = try OfferSigner(
                    privateKeyPEM: pem, keyId: fields[1], issuerId: fields[2] == "-" ? nil : fields[2],
                    bundleId: bundleId)
            } catch {
                throw OfferKeyringError("\(at): \(fields[3]) is not a P-256 private key (PEM, PKCS#8, as a .p8 is)")
            }
        }
        return OfferKeyring(signers: signers)
    }
}

/// An offer keys file that cannot be used, with the line or file at fault.
public struct OfferKeyringError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
