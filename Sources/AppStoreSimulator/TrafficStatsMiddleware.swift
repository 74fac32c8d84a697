import Foundation
import Hummingbird

/// Counts Server API and verifyReceipt requests into `TrafficStats`, and remembers every 429
/// `Retry-After` the client was given so a call that comes back sooner is counted.
///
/// Sits outside `FaultMiddleware`: arrival is timed before any added latency, and the 429 is
/// read from the answer the client gets, whatever produced it.
struct TrafficStatsMiddleware<Context: RequestContext>: RouterMiddleware {
    let stats: TrafficStats
    let surface: FaultSurface

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let resource = request.uri.path
        stats.arrived(on: surface, resource: resource, at: Store.milliseconds(Date()))
        let response = try await next(request, context)
        // Recorded before the response is written, so the client's next call can't overtake it.
        if response.status == .tooManyRequests, let instant = response.headers[.retryAfter].flatMap({ Int64($0) }) {
            stats.toldToWait(resource, until: instant, now: Store.milliseconds(Date()))
        }
        return response
    }
}
