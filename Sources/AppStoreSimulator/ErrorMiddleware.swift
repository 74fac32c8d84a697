import Basics
import Hummingbird

/// Renders `SimulatorError`s thrown by control API handlers as `{"error": code, "message": reason}`
/// with a matching 4xx/5xx status, so scripts see why a call was refused.
///
/// A middleware rather than a conformance of the public error type to Hummingbird's protocol,
/// which would make Hummingbird part of this module's public interface.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as SimulatorError {
            return try JSONResponse.make(
                status: Self.status(for: error.code), body: ["error": error.code.description, "message": error.reason]
            )
        }
    }

    static func status(for code: SimulatorError.Code) -> HTTPResponse.Status {
        switch code {
        case .badRequest: .badRequest
        case .notFound: .notFound
        case .conflict: .conflict
        default: .internalServerError
        }
    }
}
