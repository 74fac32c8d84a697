public import Basics
import Foundation
public import Hummingbird

/// A refusal of the read API: its status and a JSON body `{"error": {"code", "message"}}`
/// (docs/openapi.yaml, `Error`), so a backend branches on `code` and a person reads `message`.
public struct APIError: Error, Sendable, Hashable {
    public struct Code: OpenEnumeration {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// No `Authorization: Bearer <key>`, or a key the keys file does not hold (401).
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// A valid key that may not read this app (403).
        public static let forbidden = Code(rawValue: "forbidden")
        /// A path parameter out of its rule (400).
        public static let invalidParameter = Code(rawValue: "invalid_parameter")
        /// No decision about the event or transaction is known (404): not seen yet, or older
        /// than the audit window.
        public static let notFound = Code(rawValue: "not_found")
        /// A request body that is not what the operation takes (400), or larger than it allows (413).
        public static let invalidBody = Code(rawValue: "invalid_body")
        /// No offer key is configured for the app, or it lacks what the kind needs (404).
        public static let noOfferKey = Code(rawValue: "no_offer_key")
        /// Redis did not answer (503): retry.
        public static let unavailable = Code(rawValue: "unavailable")
    }

    public let status: HTTPResponse.Status
    public let code: Code
    public let message: String

    public init(_ status: HTTPResponse.Status, _ code: Code, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public var response: Response {
        let body = ["error": ["code": code.rawValue, "message": message]]
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
        var headers: HTTPFields = [.contentType: "application/json"]
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer realm=\"iap-api\"" }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
