import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle
import Synchronization

/// One way the simulated App Store misbehaves, named by what a client sees.
///
/// A struct of `static let`s rather than an enum so new kinds can be added without breaking
/// callers. The raw value is what `PUT /sim/v1/faults` and `--fault-kinds` accept.
public struct FaultKind: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// Server API: HTTP 500 `{"errorCode":5000001}` (GeneralInternalRetryableError).
    public static let generalInternalRetryable = FaultKind(unchecked: "5000001")
    /// Server API: HTTP 404 `{"errorCode":4040002}` (AccountNotFoundRetryableError).
    public static let accountNotFoundRetryable = FaultKind(unchecked: "4040002")
    /// Server API: HTTP 429 `{"errorCode":4290000}` with `Retry-After` as UNIX time in ms.
    public static let rateLimited = FaultKind(unchecked: "429")
    /// verifyReceipt: `{"status":21100,"is_retryable":true}`; any 21100–21199 code is accepted.
    public static let receiptInternalRetryable = FaultKind(unchecked: "21100")
    /// verifyReceipt: `{"status":21005}` (receipt server temporarily unavailable).
    public static let receiptServerUnavailable = FaultKind(unchecked: "21005")
    /// Both surfaces: the response is held back longer than any client timeout.
    public static let timeout = FaultKind(unchecked: "timeout")
    /// Both surfaces: HTTP 200 with an HTML body, as in Apple's 2020 outage.
    public static let html = FaultKind(unchecked: "html")

    public static let all: [FaultKind] = [
        .generalInternalRetryable, .accountNotFoundRetryable, .rateLimited,
        .receiptInternalRetryable, .receiptServerUnavailable, .timeout, .html,
    ]

    private init(unchecked rawValue: String) { self.rawValue = rawValue }

    /// Accepts the names above and every verifyReceipt internal error 21100–21199.
    public init(_ rawValue: String) throws {
        if Self.all.contains(where: { $0.rawValue == rawValue }) || Self.receiptInternalStatus(rawValue) != nil {
            self.rawValue = rawValue
        } else {
            let known = Self.all.map(\.rawValue).joined(separator: ", ")
            throw SimulatorError(.badRequest, "unknown fault kind '\(rawValue)' (known: \(known), 21100-21199)")
        }
    }

    public init(from decoder: any Decoder) throws {
        try self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    static func receiptInternalStatus(_ rawValue: String) -> Int? {
        guard let status = Int(rawValue), (21100...21199).contains(status) else { return nil }
        return status
    }

    /// Which surface a kind belongs to: Apple answers each surface in its own vocabulary.
    func applies(to surface: FaultSurface) -> Bool {
        switch self {
        case .timeout, .html: true
        case .generalInternalRetryable, .accountNotFoundRetryable, .rateLimited: surface == .serverAPI
        default: surface == .verifyReceipt
        }
    }
}

/// The endpoints faults can hit. The control API is never faulted: tests drive it.
enum FaultSurface: Sendable {
    case serverAPI, verifyReceipt
}

/// What `PUT /sim/v1/faults` accepts and what `--fault-rate`/`--fault-kinds`/`--latency-ms` set.
///
/// Omitted keys take their defaults, so a `PUT` replaces the whole configuration.
public struct FaultConfiguration: Sendable, Codable, Equatable {
    /// Probability in 0...1 that a Server API or verifyReceipt request gets a fault.
    public var rate: Double
    /// Kinds to choose from (uniformly, among those that apply to the hit surface).
    public var kinds: [FaultKind]
    /// Latency added to every Server API and verifyReceipt response, in milliseconds.
    public var latencyMs: Int
    /// How far ahead of the answer a `429` fault's `Retry-After` lies, in milliseconds. Short by
    /// default so fault runs keep moving; longer makes a client's early calls easier to catch.
    public var retryAfterMs: Int
    /// Probability in 0...1 that a notification's delivery is lost on the way: every attempt
    /// Apple's schedule makes fails (`NO_RESPONSE`) without reaching the notify URL, and
    /// Get Notification History shows the notification with those failed attempts, as Apple
    /// would after a gateway outage longer than its retries. Decided once per notification.
    public var dropNotificationRate: Double

    /// `retryAfterMs` when none is given: one second, what the simulator always answered before
    /// it was configurable.
    public static let defaultRetryAfterMs = 1000

    public init(
        rate: Double = 0, kinds: [FaultKind] = [], latencyMs: Int = 0, retryAfterMs: Int = defaultRetryAfterMs,
        dropNotificationRate: Double = 0
    ) {
        self.rate = rate
        self.kinds = kinds
        self.latencyMs = latencyMs
        self.retryAfterMs = retryAfterMs
        self.dropNotificationRate = dropNotificationRate
    }

    /// No faults, no added latency.
    public static let none = FaultConfiguration()

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            rate: try container.decodeIfPresent(Double.self, forKey: .rate) ?? 0,
            kinds: try container.decodeIfPresent([FaultKind].self, forKey: .kinds) ?? [],
            latencyMs: try container.decodeIfPresent(Int.self, forKey: .latencyMs) ?? 0,
            retryAfterMs: try container.decodeIfPresent(Int.self, forKey: .retryAfterMs) ?? Self.defaultRetryAfterMs,
            dropNotificationRate: try container.decodeIfPresent(Double.self, forKey: .dropNotificationRate) ?? 0
        )
    }

    func validated() throws -> FaultConfiguration {
        guard (0...1).contains(rate) else { throw SimulatorError(.badRequest, "rate must be within 0...1") }
        guard (0...1).contains(dropNotificationRate) else {
            throw SimulatorError(.badRequest, "dropNotificationRate must be within 0...1")
        }
        guard latencyMs >= 0, latencyMs <= 600_000 else {
            throw SimulatorError(.badRequest, "latencyMs must be within 0...600000")
        }
        // An hour at most: Apple's limits are hourly, so no real Retry-After lies further ahead.
        guard (0...3_600_000).contains(retryAfterMs) else {
            throw SimulatorError(.badRequest, "retryAfterMs must be within 0...3600000")
        }
        return self
    }
}

/// The faults in force, shared by the control API (which changes them) and the middleware.
final class FaultState: Sendable {
    private let value: Mutex<FaultConfiguration>

    init(_ initial: FaultConfiguration) { value = Mutex(initial) }

    var current: FaultConfiguration {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

/// Injects the configured faults into the Server API and verifyReceipt routes, and counts each
/// one it injects in `stats` (by kind, for `GET /sim/v1/stats`).
struct FaultMiddleware<Context: RequestContext>: RouterMiddleware {
    let state: FaultState
    let stats: TrafficStats
    let surface: FaultSurface
    /// How long a `timeout` fault holds the response; longer than client timeouts.
    let hangDuration: Duration

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let faults = state.current
        if faults.latencyMs > 0 {
            try await Task.sleep(for: .milliseconds(faults.latencyMs))
        }
        let applicable = faults.kinds.filter { $0.applies(to: surface) }
        guard !applicable.isEmpty, faults.rate > 0, Double.random(in: 0..<1) < faults.rate,
            let kind = applicable.randomElement()
        else {
            return try await next(request, context)
        }
        stats.injected(kind)
        return try await Self.response(for: kind, retryAfterMs: faults.retryAfterMs, hangDuration: hangDuration)
    }

    static func response(for kind: FaultKind, retryAfterMs: Int, hangDuration: Duration) async throws -> Response {
        switch kind {
        case .generalInternalRetryable:
            return try AppleAPIError.generalInternalRetryable.response()
        case .accountNotFoundRetryable:
            return try AppleAPIError.accountNotFoundRetryable.response()
        case .rateLimited:
            let retryAt = Store.milliseconds(Date()) + Int64(retryAfterMs)
            return try AppleAPIError.rateLimitExceeded.response(headers: [.retryAfter: String(retryAt)])
        case .timeout:
            // Ends early on graceful shutdown so a stopping simulator doesn't wait for the hang.
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: hangDuration) }
            return Response(status: .gatewayTimeout)
        case .html:
            let html = "<html><head><title>Service Unavailable</title></head><body>Try again later.</body></html>"
            return Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: html))
            )
        default:
            let status = FaultKind.receiptInternalStatus(kind.rawValue) ?? 21005
            return try JSONResponse.make(body: VerifyReceiptStatusBody(status: status))
        }
    }
}
