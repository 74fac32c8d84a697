import AppStore
import AppStoreModels
import Crypto
import Foundation
import Processes
import SwiftASN1
import Synchronization
import TestSupport
import Testing
import X509

/// Online mode against a real OpenSSL OCSP responder: `openssl ocsp` answers from a CA index
/// file and signs with the issuer's key, so swift-certificates checks a genuine response
/// (responder id, signature, nonce echo, thisUpdate/nextUpdate) rather than a canned one.
@Suite(.timeLimit(.minutes(2))) struct OCSPResponderTests {
    /// Answered by the intermediate (it issued the leaf).
    static let leafResponderURI = "http://ocsp.test/intermediate"
    /// Answered by the root (it issued the intermediate).
    static let intermediateResponderURI = "http://ocsp.test/root"

    @Test(.enabled(if: OpenSSLOCSPTransport.opensslPath != nil, "needs the openssl command"))
    func goodLeafAndIntermediateVerify() async throws {
        let fixture = try Fixture(leaf: .good, intermediate: .good)
        let result = await fixture.verify()
        guard case .valid = result else {
            Issue.record("expected valid, got \(result)")
            return
        }
        #expect(fixture.transport.queried == [Self.leafResponderURI, Self.intermediateResponderURI])
        #expect(fixture.transport.answered == 2)
    }

    @Test(.enabled(if: OpenSSLOCSPTransport.opensslPath != nil, "needs the openssl command"))
    func revokedLeafIsInvalidChain() async throws {
        let fixture = try Fixture(leaf: .revoked, intermediate: .good)
        let result = await fixture.verify()
        guard case .invalid(let error) = result else {
            Issue.record("expected invalid, got \(result)")
            return
        }
        #expect(error.code == .invalidChain)
        #expect(error.reason.contains("revoked"), "\(error.reason)")
        // A revoked leaf ends the check: the intermediate is not asked.
        #expect(fixture.transport.queried == [Self.leafResponderURI])
        #expect(fixture.transport.answered == 1)
    }

    @Test(.enabled(if: OpenSSLOCSPTransport.opensslPath != nil, "needs the openssl command"))
    func revokedIntermediateIsInvalidChain() async throws {
        let fixture = try Fixture(leaf: .good, intermediate: .revoked)
        let result = await fixture.verify()
        guard case .invalid(let error) = result else {
            Issue.record("expected invalid, got \(result)")
            return
        }
        #expect(error.code == .invalidChain)
        #expect(error.reason.contains("revoked"), "\(error.reason)")
        #expect(fixture.transport.answered == 2)
    }

    /// The leaf's responder answers "good" but the intermediate's cannot be reached: still retryable.
    @Test(.enabled(if: OpenSSLOCSPTransport.opensslPath != nil, "needs the openssl command"))
    func unreachableIntermediateResponderIsRetryable() async throws {
        let fixture = try Fixture(leaf: .good, intermediate: .good, intermediateResponderReachable: false)
        let result = await fixture.verify()
        guard case .retryable(let error) = result else {
            Issue.record("expected retryable, got \(result)")
            return
        }
        #expect(error.code == .retryableVerificationFailure)
        #expect(fixture.transport.queried == [Self.leafResponderURI, Self.intermediateResponderURI])
        #expect(fixture.transport.answered == 1)
    }

    /// With the soft-fail fallback, the same unreachable responder lets the chain through on its
    /// offline checks, and the stage is told.
    @Test(.enabled(if: OpenSSLOCSPTransport.opensslPath != nil, "needs the openssl command"))
    func unreachableResponderIsAcceptedOfflineWhenConfigured() async throws {
        let fixture = try Fixture(leaf: .good, intermediate: .good, intermediateResponderReachable: false)
        let fallbacks = Mutex<[String]>([])
        let result = await fixture.verify(whenUnreachable: .acceptOfflineChain) { failure in
            fallbacks.withLock { $0.append(failure) }
        }
        guard case .valid = result else {
            Issue.record("expected valid, got \(result)")
            return
        }
        #expect(fallbacks.withLock { $0.count } == 1)
        #expect(fallbacks.withLock { $0.first?.contains(Self.intermediateResponderURI) ?? false })
    }

    /// The fallback is for a responder that cannot be asked, never for one that says "revoked".
    @Test(.enabled(if: OpenSSLOCSPTransport.opensslPath != nil, "needs the openssl command"))
    func aRevokedLeafStaysRefusedWithTheFallback() async throws {
        let fixture = try Fixture(leaf: .revoked, intermediate: .good, intermediateResponderReachable: false)
        let result = await fixture.verify(whenUnreachable: .acceptOfflineChain) { _ in
            Issue.record("no fallback for an answered query")
        }
        guard case .invalid(let error) = result else {
            Issue.record("expected invalid, got \(result)")
            return
        }
        #expect(error.code == .invalidChain)
    }

    enum Status { case good, revoked }

    /// A fresh test PKI whose leaf and intermediate name OCSP responders, an index file giving
    /// their statuses, and a transport that runs `openssl ocsp` for each query.
    struct Fixture {
        let chain: TestSigningChain
        let transport: OpenSSLOCSPTransport

        init(leaf: Status, intermediate: Status, intermediateResponderReachable: Bool = true) throws {
            var options = TestSigningChain.Options()
            options.leafOCSPURI = OCSPResponderTests.leafResponderURI
            options.intermediateOCSPURI = OCSPResponderTests.intermediateResponderURI
            let chain = try TestSigningChain(options)
            self.chain = chain

            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("ocsp-responder-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            func write(_ text: String, _ name: String) throws -> String {
                let url = directory.appendingPathComponent(name)
                try Data(text.utf8).write(to: url)
                return url.path
            }
            let index = try write(
                Self.indexLine(chain.leaf, leaf) + Self.indexLine(chain.intermediate, intermediate),
                "index.txt"
            )
            var responders: [String: OpenSSLOCSPTransport.Responder] = [
                OCSPResponderTests.leafResponderURI: .init(
                    certificatePath: try write(
                        try chain.intermediate.serializeAsPEM().pemString + "\n", "intermediate.pem"),
                    keyPath: try write(chain.intermediateKey.pemRepresentation + "\n", "intermediate-key.pem")
                )
            ]
            if intermediateResponderReachable {
                responders[OCSPResponderTests.intermediateResponderURI] = .init(
                    certificatePath: try write(try chain.root.serializeAsPEM().pemString + "\n", "root.pem"),
                    keyPath: try write(chain.rootKey.pemRepresentation + "\n", "root-key.pem")
                )
            }
            self.transport = OpenSSLOCSPTransport(directory: directory, indexPath: index, responders: responders)
        }

        func verify(
            whenUnreachable: OCSPUnreachable = .retry, onOfflineFallback: (@Sendable (String) -> Void)? = nil
        ) async -> AppStore.VerificationResult<JWSTransactionDecodedPayload> {
            do {
                let verifier = try SignedDataVerifier(
                    .init(
                        rootCertificates: [try self.chain.rootDER], bundleId: "com.example.game", environment: .sandbox,
                        onlineChecks: true, ocspTransport: self.transport, whenOCSPUnreachable: whenUnreachable,
                        onOfflineFallback: onOfflineFallback
                    ))
                let payload = JWSChainTests.transactionPayload(
                    extra: ["signedDate": Int64(Date().timeIntervalSince1970 * 1000)]
                )
                return await verifier.verifyAndDecodeTransaction(try self.chain.sign(payload))
            } catch {
                Issue.record("setup failed: \(error)")
                return .invalid(AppStoreModels.VerificationError(.invalidJWTFormat, "setup failed: \(error)"))
            }
        }

        /// One OpenSSL CA database line: `V|R, expiry, revocation time, serial, file, subject`.
        static func indexLine(_ certificate: Certificate, _ status: Status) -> String {
            let expiry = Self.utcTime(certificate.notValidAfter)
            let serial = OpenSSLOCSPTransport.serialHex(certificate.serialNumber)
            let subject = "/\(certificate.subject)"
            switch status {
            case .good:
                return "V\t\(expiry)\t\t\(serial)\tunknown\t\(subject)\n"
            case .revoked:
                let revokedAt = Self.utcTime(Date().addingTimeInterval(-3600))
                return "R\t\(expiry)\t\(revokedAt)\t\(serial)\tunknown\t\(subject)\n"
            }
        }

        /// `YYMMDDHHMMSSZ`, as OpenSSL's index file stores times.
        static func utcTime(_ date: Date) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyMMddHHmmss"
            return formatter.string(from: date) + "Z"
        }
    }
}

/// Answers each OCSP query by running one short-lived `openssl ocsp` process (request and
/// response passed as files), signed by the issuer that the query's URI names. No server, so
/// nothing to wait for or to hang: each process either exits or is killed after a timeout.
final class OpenSSLOCSPTransport: OCSPTransport {
    struct Responder: Sendable {
        var certificatePath: String
        var keyPath: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let opensslPath = try? ChildProcess.locate("openssl")

    let directory: URL
    let indexPath: String
    let responders: [String: Responder]
    let timeout: Duration
    private let requests = Atomic<Int>(0)
    private let log = Mutex<(queried: [String], answered: Int)>(([], 0))

    init(directory: URL, indexPath: String, responders: [String: Responder], timeout: Duration = .seconds(30)) {
        self.directory = directory
        self.indexPath = indexPath
        self.responders = responders
        self.timeout = timeout
    }

    deinit {
        try? FileManager.default.removeItem(at: self.directory)
    }

    /// URIs queried, in order.
    var queried: [String] { self.log.withLock { $0.queried } }
    /// Queries that got a response from openssl.
    var answered: Int { self.log.withLock { $0.answered } }

    func post(request: [UInt8], to uri: String) async throws -> [UInt8] {
        self.log.withLock { $0.queried.append(uri) }
        guard let responder = self.responders[uri] else {
            throw Failure(description: "no responder at \(uri)")
        }
        guard let openssl = Self.opensslPath else { throw Failure(description: "openssl not found") }

        let number = self.requests.add(1, ordering: .relaxed).newValue
        let requestURL = self.directory.appendingPathComponent("request-\(number).der")
        let responseURL = self.directory.appendingPathComponent("response-\(number).der")
        try Data(request).write(to: requestURL)

        // `ChildProcess` waits for the child on a thread of its own (a blocking `waitpid`), so its
        // exit is seen however loaded the test run is; Foundation's `Process` missed one under
        // `make test` and the query timed out although openssl answers in milliseconds.
        let completion: ChildProcess.Completion
        do {
            completion = try await ChildProcess.run(
                openssl,
                [
                    "ocsp", "-index", self.indexPath,
                    "-CA", responder.certificatePath,
                    "-rsigner", responder.certificatePath, "-rkey", responder.keyPath,
                    "-reqin", requestURL.path, "-respout", responseURL.path,
                    "-ndays", "1",
                ],
                timeout: self.timeout)
        } catch let error as SpawnError {
            throw Failure(description: "openssl ocsp: \(error)")
        }
        let errors = completion.output
        guard completion.exitCode == 0 else {
            throw Failure(
                description: "openssl ocsp exited with \(completion.exitCode.map(String.init) ?? "a signal"): \(errors)"
            )
        }
        let response = try Data(contentsOf: responseURL)
        guard !response.isEmpty else { throw Failure(description: "openssl ocsp wrote no response: \(errors)") }
        self.log.withLock { $0.answered += 1 }
        return Array(response)
    }

    /// The serial as OpenSSL's index spells it (`BN_bn2hex`): upper-case hex, whole bytes,
    /// no leading zero bytes.
    static func serialHex(_ serial: Certificate.SerialNumber) -> String {
        let bytes = serial.bytes.drop { $0 == 0 }
        if bytes.isEmpty { return "00" }
        return bytes.map { String(format: "%02X", $0) }.joined()
    }
}
