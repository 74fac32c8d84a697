public import Contracts

/// One value per app the deployment serves (a verifier, a confirmer, an answerer), looked up
/// by the bundle id an event carries (decision D57). Built once at start, so choosing costs a
/// dictionary lookup per record.
public struct PerApp<Value: Sendable>: Sendable {
    private let values: [String: Value]
    /// The apps, in the order the settings list them.
    public let bundleIds: [String]

    /// - Precondition: each bundle id once.
    public init(_ apps: [(bundleId: String, value: Value)]) {
        self.values = Dictionary(apps.map { ($0.bundleId, $0.value) }) { _, _ in
            preconditionFailure("an app is listed once (the settings refuse duplicates)")
        }
        self.bundleIds = apps.map(\.bundleId)
    }

    /// The value of `bundleId`'s app; an event that names no app (a notification without
    /// data) belongs to the only app, if there is one.
    public subscript(_ bundleId: String?) -> Value? {
        guard let bundleId else { return values.count == 1 ? values.values.first : nil }
        return values[bundleId]
    }

    /// The refusal of an event whose app is not served here.
    public func unknownApp(_ bundleId: String?) -> Rejection {
        let served = bundleIds.joined(separator: ", ")
        guard let bundleId else {
            return Rejection(.unknownApp, "the event names no app; this deployment serves \(served)")
        }
        return Rejection(.unknownApp, "app '\(bundleId)' is not one this deployment serves (\(served))")
    }
}
