import AppStore
import AppStoreModels
import ArgumentParser
import Foundation
import Hosting

/// `iap jws`: verify or inspect App Store signed data.
struct JWSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jws",
        abstract: "Verify or decode App Store signed data (JWS).",
        subcommands: [JWSVerifyCommand.self, JWSDecodeCommand.self]
    )
}

/// What the signed payload is; `auto` looks at the payload's fields (``SignedPayloadKind``).
enum JWSKind: String, ExpressibleByArgument, CaseIterable {
    case auto, transaction, renewal, notification
    case appTransaction = "app-transaction"
    case realtimeRequest = "realtime-request"

    static func detect(_ jws: String) -> JWSKind {
        switch SignedPayloadKind(detecting: jws) {
        case .transaction: .transaction
        case .renewal: .renewal
        case .notification: .notification
        case .appTransaction: .appTransaction
        case .realtimeRequest: .realtimeRequest
        }
    }
}

enum ValidateAt: String, ExpressibleByArgument, CaseIterable {
    case signedDate = "signed-date"
    case now
}

struct JWSVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract:
            "Verify a JWS; print its payload as JSON (exit 0), or {\"error\", \"message\"} (exit 1; 75 when retryable)."
    )

    @Option(help: "Read the JWS from this file instead of stdin.")
    var file: String?
    @Option(
        name: .customLong("root-cert"),
        help: "Trusted root certificate (DER or PEM); repeatable. Default: Apple Root CA - G3.")
    var rootCertificates: [String] = []
    @Option(help: "Expected bundle id.")
    var bundleId: String
    @Option(help: "Expected app Apple id (required for Production).")
    var appAppleId: Int64?
    @Option(help: "Expected environment: Production or Sandbox.")
    var environment: String = "Production"
    @Option(help: "Check certificate validity at the payload's signed date or now.")
    var validateAt: ValidateAt = .signedDate
    @Flag(help: "Check revocation with OCSP (validates at now).")
    var onlineChecks = false
    @Option(help: "Payload kind: auto, transaction, renewal, notification, app-transaction, realtime-request.")
    var kind: JWSKind = .auto

    func run() async throws {
        let jws = try CLIInput.read(file: self.file)
        let roots = try self.rootCertificates.map { path in try AppleRoots.load(path: path) }
        let verifier: SignedDataVerifier
        do throws(ConfigurationError) {
            verifier = try SignedDataVerifier(
                .init(
                    rootCertificates: roots.isEmpty ? [AppleRoots.rootCAG3] : roots,
                    bundleId: self.bundleId,
                    appAppleId: self.appAppleId,
                    environment: AppStoreEnvironment(rawValue: self.environment),
                    validationTime: self.validateAt == .now ? .now : .signedDate,
                    onlineChecks: self.onlineChecks
                ))
        } catch {
            CLIInput.printError(code: error.code.rawValue, message: error.reason)
            throw ExitCode(2)
        }

        let kind = self.kind == .auto ? JWSKind.detect(jws) : self.kind
        switch kind {
        case .notification: try Self.report(await verifier.verifyAndDecodeNotification(jws))
        case .renewal: try Self.report(await verifier.verifyAndDecodeRenewalInfo(jws))
        case .appTransaction: try Self.report(await verifier.verifyAndDecodeAppTransaction(jws))
        case .realtimeRequest: try Self.report(await verifier.verifyAndDecodeRealtimeRequest(jws))
        case .transaction, .auto: try Self.report(await verifier.verifyAndDecodeTransaction(jws))
        }
    }

    private static func report<Payload: Encodable>(_ result: VerificationResult<Payload>) throws {
        switch result {
        case .valid(let payload):
            try CLIInput.printJSON(payload)
        case .invalid(let error):
            CLIInput.printError(code: error.code.rawValue, message: error.reason)
            throw ExitCode(1)
        case .retryable(let error):
            CLIInput.printError(code: error.code.rawValue, message: error.reason)
            throw ExitCode(75)
        }
    }
}

struct JWSDecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Print a JWS's header and payload WITHOUT verifying anything."
    )

    @Option(help: "Read the JWS from this file instead of stdin.")
    var file: String?
    @Flag(help: "Print the x5c certificates in full instead of their sizes.")
    var showCertificates = false

    func run() async throws {
        let jws = try CLIInput.read(file: self.file)
        let unverified: UnverifiedJWS
        do throws(VerificationError) {
            unverified = try UnverifiedJWS(jws)
        } catch {
            CLIInput.printError(code: error.code.rawValue, message: error.reason)
            throw ExitCode(1)
        }
        var header = (try? JSONSerialization.jsonObject(with: Data(unverified.headerJSON))) as? [String: Any] ?? [:]
        if !self.showCertificates, let x5c = header["x5c"] as? [String] {
            header["x5c"] = x5c.map { "<\($0.count) base64 characters>" }
        }
        let payload = (try? JSONSerialization.jsonObject(with: Data(unverified.payloadJSON))) ?? [:]
        try CLIInput.printJSONObject(["verified": false, "header": header, "payload": payload])
    }
}
