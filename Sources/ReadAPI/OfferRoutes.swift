import AppStore
import AppStoreModels
import Contracts
import Foundation
import Hummingbird
import Logging

/// `POST /v1/apps/{bundleId}/offers/signatures`: the signatures StoreKit asks an app's server
/// for (docs/offers.md), made with the app's offer key (``OfferKeyring``) for a key holding the
/// `sign` scope. Nothing is stored and nothing about the signature is logged but its kind.
extension ReadRoutes {
    func offerSignature(_ request: Request, context: BasicRequestContext, key: APIKeyring.Key) async throws
        -> Response
    {
        let bundleId = try PathParameters.bundleId(context.parameters.get("bundleId"))
        try Self.authorize(key, .sign, bundleId: bundleId)
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: OfferSignatureBody.maximumBytes)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw APIError(
                .contentTooLarge, .invalidBody, "the body is larger than \(OfferSignatureBody.maximumBytes) bytes")
        }
        let asked = try OfferSignatureBody.request(from: Array(buffer: body))
        guard let signer = offers.signer(bundleId: bundleId) else {
            throw APIError(.notFound, .noOfferKey, "no offer key is configured for app \(bundleId)")
        }
        guard signer.issuerId != nil || !asked.kind.needsIssuer else {
            throw APIError(
                .notFound, .noOfferKey,
                "the offer key of app \(bundleId) has no issuer id, which a StoreKit 2 signature names")
        }
        let signature = try signer.sign(asked, now: now().date)
        logger.info(
            "offer signed",
            metadata: ["key": "\(key.name)", "bundle_id": "\(bundleId)", "kind": "\(asked.kind.rawValue)"])
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try EventEncoder.encode(value: signature))))
    }
}

/// The body of a signature request (docs/openapi.yaml, `OfferSignatureRequest`): `kind` and that
/// kind's fields, nothing else. A field of another kind, a `null` or a value out of its rule is a
/// 400 naming it, as a typo signed anyway would hand the app a signature for the wrong offer.
enum OfferSignatureBody {
    static let maximumBytes = 64 * 1024

    static func request(from body: [UInt8]) throws(APIError) -> OfferSignatureRequest {
        let fields: Fields
        do {
            fields = try JSONDecoder().decode(Fields.self, from: Data(body))
        } catch let error as APIError {
            throw error
        } catch {
            throw invalid("the body is a JSON object with a kind of \(kinds): \(Self.describe(error))")
        }
        let allowed: Set<String> =
            switch fields.kind {
            case .promotional: ["kind", "productId", "offerId", "applicationUsername"]
            case .promotionalJWS: ["kind", "productId", "offerId", "transactionId"]
            case .introductoryEligibility: ["kind", "productId", "allowIntroductoryOffer", "transactionId"]
            case .advancedCommerce: ["kind", "request"]
            }
        if let stray = fields.present.subtracting(allowed).sorted().first {
            throw invalid(
                "\(fields.kind.rawValue) takes \(allowed.subtracting(["kind"]).sorted().joined(separator: ", ")), not \(stray)"
            )
        }
        switch fields.kind {
        case .promotional:
            return .promotional(
                productId: try identifier(fields.productId, "productId"),
                offerId: try identifier(fields.offerId, "offerId"),
                applicationUsername: try username(fields.applicationUsername))
        case .promotionalJWS:
            return .promotionalJWS(
                productId: try identifier(fields.productId, "productId"),
                offerId: try identifier(fields.offerId, "offerId"),
                transactionId: try fields.transactionId.map { text throws(APIError) in try transaction(text) })
        case .introductoryEligibility:
            guard let allow = fields.allowIntroductoryOffer else {
                throw invalid("introductory-eligibility needs allowIntroductoryOffer (true or false)")
            }
            return .introductoryEligibility(
                productId: try identifier(fields.productId, "productId"), allowIntroductoryOffer: allow,
                transactionId: try transaction(fields.transactionId))
        case .advancedCommerce:
            return .advancedCommerce(request: try advancedCommerceRequest(body))
        }
    }

    private static let kinds = OfferSignatureRequest.Kind.allCases.map(\.rawValue).joined(separator: ", ")

    /// The fields as sent, and every key the object holds.
    private struct Fields: Decodable {
        var kind: OfferSignatureRequest.Kind
        var productId: String?
        var offerId: String?
        var applicationUsername: String?
        var transactionId: String?
        var allowIntroductoryOffer: Bool?
        var present: Set<String>

        private enum CodingKeys: String, CodingKey {
            case kind, productId, offerId, applicationUsername, transactionId, allowIntroductoryOffer, request
        }

        private struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            present = Set(try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue))
            let container = try decoder.container(keyedBy: CodingKeys.self)
            for key in container.allKeys where try container.decodeNil(forKey: key) {
                throw OfferSignatureBody.invalid("\(key.stringValue) is null; leave it out instead")
            }
            kind = try container.decode(OfferSignatureRequest.Kind.self, forKey: .kind)
            productId = try container.decodeIfPresent(String.self, forKey: .productId)
            offerId = try container.decodeIfPresent(String.self, forKey: .offerId)
            applicationUsername = try container.decodeIfPresent(String.self, forKey: .applicationUsername)
            transactionId = try container.decodeIfPresent(String.self, forKey: .transactionId)
            allowIntroductoryOffer = try container.decodeIfPresent(Bool.self, forKey: .allowIntroductoryOffer)
            if container.contains(.request) {
                guard (try? container.nestedContainer(keyedBy: AnyKey.self, forKey: .request)) != nil else {
                    throw OfferSignatureBody.invalid("request is the Advanced Commerce request, a JSON object")
                }
            }
        }
    }

    /// The `request` object, re-encoded with sorted keys: what the JWS carries is the request's
    /// JSON, not the bytes it arrived as.
    private static func advancedCommerceRequest(_ body: [UInt8]) throws(APIError) -> [UInt8] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let request = object["request"],
            let encoded = try? JSONSerialization.data(
                withJSONObject: request, options: [.sortedKeys, .withoutEscapingSlashes])
        else {
            throw invalid("advanced-commerce needs request, the Advanced Commerce request as a JSON object")
        }
        return Array(encoded)
    }

    /// A product or offer id: 1–256 characters without control characters (counted as the
    /// document's JSON Schema counts them, in code points).
    private static func identifier(_ text: String?, _ name: String) throws(APIError) -> String {
        guard let text, (1...256).contains(text.unicodeScalars.count), !hasControl(text) else {
            throw invalid("\(name) is 1–256 characters without control characters")
        }
        return text
    }

    /// The app's `applicationUsername`: empty when absent, at most 256 characters.
    private static func username(_ text: String?) throws(APIError) -> String {
        guard let text else { return "" }
        guard text.unicodeScalars.count <= 256, !hasControl(text) else {
            throw invalid("applicationUsername is at most 256 characters without control characters")
        }
        return text
    }

    private static func transaction(_ text: String?) throws(APIError) -> String {
        do {
            return try PathParameters.transactionId(text)
        } catch {
            throw invalid(error.message)
        }
    }

    private static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    static func invalid(_ message: String) -> APIError { APIError(.badRequest, .invalidBody, message) }

    /// A decoding error in a sentence: the field at fault and what was wrong with it.
    private static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _): "\(key.stringValue) is missing"
        case .dataCorrupted(let context) where context.codingPath.isEmpty: "the body is not JSON"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            context.codingPath.isEmpty
                ? "the body is not a JSON object"
                : "\(context.codingPath.map(\.stringValue).joined(separator: ".")) is not of its type"
        default: "the body does not decode"
        }
    }
}
