import AppStoreSimulator
import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Runs a simulator on a free loopback port for the duration of `body`, then shuts it down.
func withSimulator(
    _ configuration: AppStoreSimulatorConfiguration = .init(),
    _ body: (SimulatorClient) async throws -> Void
) async throws {
    var logger = Logger(label: "test.simulator")
    logger.logLevel = .critical
    let simulator = try AppStoreSimulatorServer(configuration: configuration, logger: logger)
    let group = ServiceGroup(configuration: .init(services: [simulator], logger: logger))
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        do {
            let client = SimulatorClient(base: try await simulator.baseURL(), simulator: simulator)
            try await body(client)
        } catch {
            await group.triggerGracefulShutdown()
            throw error
        }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
    }
}

struct HTTPResult {
    var status: Int
    var headers: HTTPHeaders
    var body: Data

    func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw TestFailure("body is not a JSON object: \(String(decoding: body, as: UTF8.self))")
        }
        return object
    }

    func string(_ key: String) throws -> String {
        guard let value = try json()[key] as? String else {
            throw TestFailure("no string '\(key)' in \(String(decoding: body, as: UTF8.self))")
        }
        return value
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// HTTP access to a running simulator, plus a signing key for Server API tokens.
struct SimulatorClient {
    let base: String
    let simulator: AppStoreSimulatorServer

    func request(
        _ method: HTTPMethod, _ path: String, json: [String: Any]? = nil, rawBody: Data? = nil,
        token: String? = nil, timeout: TimeAmount = .seconds(30)
    ) async throws -> HTTPResult {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let json {
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
            request.headers.add(name: "Content-Type", value: "application/json")
        } else if let rawBody {
            request.body = .bytes(ByteBuffer(bytes: rawBody))
        }
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        let response = try await HTTPClient.shared.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 16 * 1024 * 1024)
        return HTTPResult(
            status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView))
    }

    /// `POST /sim/v1/purchases`; fails the test unless it succeeds.
    func purchase(
        productId: String = "gems_100", type: String = "Consumable", environment: String = "Sandbox",
        bundleId: String = "com.example.game", extra: [String: Any] = [:]
    ) async throws -> HTTPResult {
        var body: [String: Any] = [
            "bundleId": bundleId, "productId": productId, "type": type, "quantity": 1, "environment": environment,
        ]
        body.merge(extra) { $1 }
        let result = try await request(.POST, "/sim/v1/purchases", json: body)
        guard result.status == 200 else {
            throw TestFailure("purchase failed: \(result.status) \(String(decoding: result.body, as: UTF8.self))")
        }
        return result
    }
}

// MARK: Server API tokens

/// Mints an App Store Server API bearer token as Apple's libraries do.
func makeToken(
    key: P256.Signing.PrivateKey, keyId: String = "KEY123", issuer: String = "issuer-1",
    bundleId: String = "com.example.game", audience: String = "appstoreconnect-v1",
    issuedAt: Date = Date(), lifetime: TimeInterval = 300
) throws -> String {
    let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "kid": keyId, "typ": "JWT"])
    let claims = try JSONSerialization.data(
        withJSONObject: [
            "iss": issuer, "iat": Int(issuedAt.timeIntervalSince1970),
            "exp": Int(issuedAt.timeIntervalSince1970 + lifetime), "aud": audience, "bid": bundleId,
        ] as [String: Any])
    let input = "\(base64URL(header)).\(base64URL(claims))"
    let signature = try key.signature(for: Data(input.utf8)).rawRepresentation
    return "\(input).\(base64URL(signature))"
}

func base64URL(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
}

func decodeBase64URL(_ text: some StringProtocol) throws -> Data {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    guard let data = Data(base64Encoded: base64) else { throw TestFailure("not base64url: \(text)") }
    return data
}

// MARK: JWS verification (Apple's procedure, anchored in the simulator's root)

/// Requires the Apple OIDs on leaf and intermediate, as App Store verifiers do.
struct AppStoreOIDPolicy: VerifierPolicy {
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        guard chain.count == 3 else { return .failsToMeetPolicy(reason: "chain length \(chain.count), want 3") }
        guard chain[0].extensions[oid: [1, 2, 840, 113_635, 100, 6, 11, 1]] != nil else {
            return .failsToMeetPolicy(reason: "leaf lacks 1.2.840.113635.100.6.11.1")
        }
        guard chain[1].extensions[oid: [1, 2, 840, 113_635, 100, 6, 2, 1]] != nil else {
            return .failsToMeetPolicy(reason: "intermediate lacks 1.2.840.113635.100.6.2.1")
        }
        return .meetsPolicy
    }
}

/// Verifies a JWS as the pipeline will (3-cert x5c, chain to `rootPEMPath`, OIDs, ES256) and
/// returns its decoded payload.
func verifyJWS(_ jws: String, rootPEMPath: String, at time: Date = Date()) async throws -> [String: Any] {
    let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3 else { throw TestFailure("JWS has \(parts.count) segments") }
    guard let header = try JSONSerialization.jsonObject(with: decodeBase64URL(parts[0])) as? [String: Any],
        header["alg"] as? String == "ES256", let x5c = header["x5c"] as? [String], x5c.count == 3
    else { throw TestFailure("bad JWS header") }
    let certificates = try x5c.map { text -> Certificate in
        guard let der = Data(base64Encoded: text) else { throw TestFailure("x5c entry not base64") }
        return try Certificate(derEncoded: Array(der))
    }
    let root = try Certificate(pemEncoded: String(contentsOfFile: rootPEMPath, encoding: .utf8))
    var verifier = Verifier(rootCertificates: CertificateStore([root])) {
        RFC5280Policy(fixedExpiryValidationTime: time)
        AppStoreOIDPolicy()
    }
    let result = await verifier.validate(leaf: certificates[0], intermediates: CertificateStore([certificates[1]]))
    guard case .validCertificate = result else { throw TestFailure("chain invalid: \(result)") }
    guard let key = P256.Signing.PublicKey(certificates[0].publicKey) else { throw TestFailure("leaf key not P-256") }
    let signature = try decodeBase64URL(parts[2])
    guard signature.count == 64 else { throw TestFailure("signature is \(signature.count) bytes, want 64") }
    guard
        key.isValidSignature(
            try P256.Signing.ECDSASignature(rawRepresentation: signature), for: Data("\(parts[0]).\(parts[1])".utf8)
        )
    else { throw TestFailure("ES256 signature invalid") }
    guard let payload = try JSONSerialization.jsonObject(with: decodeBase64URL(parts[1])) as? [String: Any] else {
        throw TestFailure("payload not a JSON object")
    }
    return payload
}

/// Decodes a JWS payload without verifying it (for inner JWS already covered elsewhere).
func jwsPayload(_ jws: String) throws -> [String: Any] {
    let parts = jws.split(separator: ".")
    guard parts.count == 3,
        let payload = try JSONSerialization.jsonObject(with: decodeBase64URL(parts[1])) as? [String: Any]
    else { throw TestFailure("not a JWS: \(jws.prefix(40))") }
    return payload
}

/// A Server API signing key and the matching simulator configuration entry.
struct P256Key {
    let privateKey = P256.Signing.PrivateKey()
    let keyId = "KEY123"

    var apiKey: ServerAPIKey { ServerAPIKey(keyId: keyId, issuerId: "issuer-1", publicKey: privateKey.publicKey) }

    func token(bundleId: String = "com.example.game") throws -> String {
        try makeToken(key: privateKey, keyId: keyId, bundleId: bundleId)
    }
}
