import Foundation

/// What a soak found, read from the topics and the processes at the end. The verdict fails on
/// any loss, double grant, purchase bound by a hint while its signed token named an order, call
/// to Apple before its Retry-After, process death, unrejected bad input or offset left short
/// of its log end.
public struct SoakReport: Codable, Sendable {
    public struct Offsets: Codable, Sendable {
        public var group: String
        public var topic: String
        public var partition: Int32
        public var committed: Int64?
        public var logEnd: Int64
    }

    public struct Death: Codable, Sendable {
        public var process: String
        public var exitCode: Int32?
        public var logTail: String
    }

    public var purchases = 0
    /// Of ``purchases``, the bare ids published at once before the steady stream.
    public var backlog = 0
    /// Records on any dead-letter topic (`<input>.dlq`) at the end: every one is a purchase (or
    /// a notification) an operator would have to replay. Waiting for Apple never puts one there.
    public var deadLettered = 0
    /// Commands redis-server processed from the first publish to the end, per purchase; nil
    /// when the soak restarted Redis (its counter starts over).
    public var redisCommandsPerPurchase: Double?
    /// Purchases whose entitlement names one grant eventId and the expected user.
    public var grantedOnce = 0
    /// Purchases with no grant at the end.
    public var lost: [String] = []
    /// The first lost purchases' audit trails (``trailsShown``): each stage's decisions in order.
    public var lostTrails: [String] = []
    static let trailsShown = 10
    /// Purchases granted under more than one eventId.
    public var duplicateGrants: [String] = []
    /// Grant records seen more than once with the same eventId (allowed: consumers dedupe).
    public var repeatedDeliveries = 0
    /// Records the soak's own observer read twice (its group lost their partitions during an
    /// outage and read them again from the start); not counted as repeated deliveries.
    public var observerRereads = 0
    /// The first repeated purchases' copies and audit trails (``repeatsShown``): which stage
    /// decided the change again, and after what.
    public var repeatedTrails: [String] = []
    /// Repeated deliveries by what the soak did first between the record's previous copy and
    /// this one (a worker killed, a Redis or broker fault): the repeats follow the faults, so
    /// this says which.
    public var repeatsAfter: [String: Int] = [:]
    static let repeatsShown = 3
    /// Ordered purchases bound to the publisher's userId hint instead of their order's user.
    public var boundByHint: [String] = []
    public var badInputs = 0
    public var badInputsRejected = 0
    public var gatewayBadBodies = 0
    /// Bad bodies the gateway accepted (2xx: it passes on anything shaped like a notification,
    /// and intake or verify refuses it with a reason) or could not take (5xx during a broker
    /// outage); the rest were refused at once with a 4xx. Not a failure either way: a gateway
    /// that died would show among the deaths.
    public var gatewayBadBodiesNot4xx = 0
    /// `<stage>/<reason>` of every record on `iap.rejected`.
    public var rejectedByReason: [String: Int] = [:]
    /// Calls to the simulator for a resource before the Retry-After it announced.
    public var callsBeforeRetryAfter = 0
    /// Server API and verifyReceipt requests the simulator answered.
    public var appleRequests = 0
    public var appleFaultsInjected: [String: Int] = [:]
    public var kills = 0
    public var redisRestarts = 0
    public var redisLosses = 0
    public var brokerOutages = 0
    public var brokerErrorsInjected = 0
    /// Workers that stopped by themselves because Redis lost their state (exit 75) and were restarted.
    public var stateLostRestarts = 0
    /// Processes that died without being killed by the soak, other than for a lost state.
    public var deaths: [Death] = []
    /// Partitions whose committed offset is short of the log end after draining.
    public var stuckOffsets: [Offsets] = []
    public var publishSeconds = 0.0
    /// From the last publish until every purchase and bad input settled and every group's
    /// committed offsets reached the log end.
    public var drainSeconds = 0.0
    public var settled = false

    public var failures: [String] {
        var failures: [String] = []
        if !settled { failures.append("did not settle within the drain timeout") }
        if !lost.isEmpty { failures.append("\(lost.count) purchases lost") }
        if deadLettered > 0 { failures.append("\(deadLettered) records dead-lettered") }
        if !duplicateGrants.isEmpty { failures.append("\(duplicateGrants.count) purchases granted twice") }
        if !boundByHint.isEmpty {
            failures.append("\(boundByHint.count) purchases bound by a hint while their signed token named an order")
        }
        if badInputsRejected < badInputs { failures.append("\(badInputs - badInputsRejected) bad inputs not rejected") }
        if callsBeforeRetryAfter > 0 {
            failures.append("\(callsBeforeRetryAfter) Apple calls before their Retry-After")
        }
        if !deaths.isEmpty { failures.append("\(deaths.count) process deaths") }
        if !stuckOffsets.isEmpty {
            failures.append("\(stuckOffsets.count) partitions with the commit short of the log end")
        }
        return failures
    }

    public var passed: Bool { failures.isEmpty }

    public var summary: String {
        """
        purchases \(purchases) (a backlog of \(backlog) at once): granted once \(grantedOnce), lost \(lost.count), \
        granted twice \(duplicateGrants.count), bound by a hint \(boundByHint.count), dead-lettered \(deadLettered) \
        (repeated deliveries of one eventId: \(repeatedDeliveries); records the observer read again: \(observerRereads))
        bad input \(badInputs): rejected \(badInputsRejected); gateway bad bodies \(gatewayBadBodies), passed on or deferred (not 4xx) \(gatewayBadBodiesNot4xx)
        rejected by reason: \(rejectedByReason.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        faults: \(kills) kills, \(redisRestarts) Redis restarts, \(redisLosses) Redis losses, \(brokerOutages) broker outages, \
        \(brokerErrorsInjected) broker errors, \(appleRequests) Apple requests with faults \(appleFaultsInjected.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        workers restarted after a lost state: \(stateLostRestarts); deaths: \(deaths.count); calls before Retry-After: \(callsBeforeRetryAfter)
        Redis commands per purchase: \(redisCommandsPerPurchase.map { String(format: "%.1f", $0) } ?? "-") \
        (a Redis restart starts redis-server's count over); offsets short of the log end: \(stuckOffsets.count); published in \(String(format: "%.1f", publishSeconds)) s, drained in \(String(format: "%.1f", drainSeconds)) s
        \((lost + duplicateGrants + boundByHint).isEmpty ? "" : "first affected: lost \(lost.prefix(5)), granted twice \(duplicateGrants.prefix(5)), bound by a hint \(boundByHint.prefix(5))\n")\
        \(lostTrails.map { "lost: \($0)\n" }.joined())\
        \(repeatsAfter.isEmpty ? "" : "repeated deliveries by what the soak did first between the copies: \(repeatsAfter.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))\n")\
        \(repeatedTrails.map { "repeated: \($0)\n" }.joined())\
        \(passed ? "PASSED" : "FAILED: " + failures.joined(separator: "; "))
        """
    }
}
