import Crypto
import Foundation
import Synchronization

/// Remembers chains that validated, so a repeated (leaf, intermediate) pair costs one ES256
/// verify instead of path building, three signature checks and policy evaluation.
///
/// An entry stays usable for any validation time inside the chain's validity window (the
/// intersection of its certificates' validity), because nothing else RFC 5280 checks depends
/// on time. Entries confirmed by OCSP are only trusted as "online-checked" for 15 minutes, as
/// in Apple's library, so a revocation is noticed within that time.
final class ChainCache: Sendable {
    /// The `x5c` entries as sent: equal strings mean equal DER, and a hit skips base64 decoding.
    struct Key: Hashable, Sendable {
        var leaf: String
        var intermediate: String

        /// Hashes each certificate's length and last 48 characters only, where its signature
        /// is: hashing all ~3 KB of both per verification was 1.3 % of it. Equality still
        /// compares every byte, and only chains that validated are ever stored.
        func hash(into hasher: inout Hasher) {
            Self.hashTail(of: leaf, into: &hasher)
            Self.hashTail(of: intermediate, into: &hasher)
        }

        private static func hashTail(of certificate: String, into hasher: inout Hasher) {
            var certificate = certificate
            certificate.withUTF8 { bytes in
                hasher.combine(bytes.count)
                hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.suffix(48))))
            }
        }
    }

    struct Entry: Sendable {
        var publicKey: P256.Signing.PublicKey
        var validFrom: Date
        var validUntil: Date
        /// Until when the OCSP answer counts; nil when the chain was validated offline.
        var onlineCheckedUntil: Date?
    }

    static let onlineCheckLifetime: TimeInterval = 15 * 60
    private let capacity: Int
    private let entries = Mutex<[Key: Entry]>([:])

    init(capacity: Int = 64) {
        self.capacity = capacity
    }

    func publicKey(for key: Key, validationTime: Date, online: Bool, now: Date) -> P256.Signing.PublicKey? {
        self.entries.withLock { entries in
            guard let entry = entries[key],
                entry.validFrom <= validationTime, validationTime <= entry.validUntil
            else { return nil }
            if online {
                guard let checkedUntil = entry.onlineCheckedUntil, now < checkedUntil else { return nil }
            }
            return entry.publicKey
        }
    }

    func store(_ entry: Entry, for key: Key, now: Date) {
        self.entries.withLock { entries in
            if let existing = entries[key], entry.onlineCheckedUntil == nil {
                // An offline validation must not erase a still-valid OCSP confirmation.
                var merged = entry
                merged.onlineCheckedUntil = existing.onlineCheckedUntil
                entries[key] = merged
                return
            }
            entries[key] = entry
            guard entries.count > self.capacity else { return }
            entries = entries.filter { $0.value.validUntil >= now }
            while entries.count > self.capacity, let victim = entries.keys.first(where: { $0 != key }) {
                entries.removeValue(forKey: victim)
            }
        }
    }
}
