import Foundation
import Logging
import Settings
import Synchronization
import Testing

@testable import Hosting

@Suite(.timeLimit(.minutes(2))) struct JSONLogHandlerTests {
    /// Collects the lines a handler writes.
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func writesOneJSONObjectPerLine() throws {
        let lines = Lines()
        var logger = Logger(label: "iap.verify") { label in
            JSONLogHandler(label: label, metadataProvider: nil, output: lines.append)
        }
        logger[metadataKey: "stage"] = "verify"
        logger.info(
            "verified \"tx\"\nnext", metadata: ["kafka": ["topic": "iap.verify", "partition": "3"], "attempt": "2"])
        logger.debug("below the level")

        #expect(lines.all.count == 1)
        let line = try #require(lines.all.first)
        #expect(line.hasSuffix("}\n"))
        #expect(line.dropLast().contains("\n") == false)
        let json = try object(line)
        #expect(json["level"] as? String == "info")
        #expect(json["label"] as? String == "iap.verify")
        #expect(json["message"] as? String == "verified \"tx\"\nnext")
        #expect(json["stage"] as? String == "verify")
        #expect(json["kafka.topic"] as? String == "iap.verify")
        #expect(json["kafka.partition"] as? String == "3")
        #expect(json["attempt"] as? String == "2")
        let timestamp = try #require(json["timestamp"] as? String)
        #expect(try Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(timestamp) <= Date())
    }

    @Test func redactsSecretsAtAnyDepth() throws {
        let lines = Lines()
        let logger = Logger(label: "iap") { label in
            JSONLogHandler(label: label, metadataProvider: nil, output: lines.append)
        }
        logger.warning(
            "calling apple",
            metadata: [
                "password": "hunter2", "Authorization": "Bearer abc",
                "apple": ["privateKey": "-----BEGIN", "keyId": "K1"],
                "redis": ["url": "redis://h:1"], "jwtToken": "eyJ",
            ])
        let line = try #require(lines.all.first)
        for secret in ["hunter2", "Bearer abc", "BEGIN", "eyJ"] {
            #expect(!line.contains(secret))
        }
        let json = try object(line)
        #expect(json["password"] as? String == LogRedaction.placeholder)
        #expect(json["Authorization"] as? String == LogRedaction.placeholder)
        #expect(json["apple.privateKey"] as? String == LogRedaction.placeholder)
        #expect(json["apple.keyId"] as? String == "K1")
        #expect(json["jwtToken"] as? String == LogRedaction.placeholder)
    }

    @Test func fixedKeysAreNotOverwrittenByMetadata() throws {
        let line = JSONLogHandler.line(
            timestamp: Date(), level: .error, label: "l", message: "m",
            metadata: ["level": "fake", "list": ["a", .dictionary(["token": "t"])]])
        let json = try object(line)
        #expect(json["level"] as? String == "error")
        #expect(json["metadata.level"] as? String == "fake")
        #expect(!line.contains("\"t\""))
        #expect((json["list"] as? [Any])?.count == 2)
    }

    @Test func escapesControlCharacters() throws {
        let line = JSONLogHandler.line(
            timestamp: Date(), level: .info, label: "l", message: "a\u{01}b\tc\\", metadata: [:])
        #expect(line.contains("a\\u0001b\\tc\\\\"))
        #expect(try object(line)["message"] as? String == "a\u{01}b\tc\\")
    }

    @Test func textFormatRedactsToo() {
        var handler = LoggingBootstrap.makeHandler(format: .text, level: .debug, label: "x")
        handler[metadataKey: "secret"] = "s3cret"
        handler[metadataKey: "stage"] = "grant"
        handler[metadataKey: "apple.PrivateKey"] = "-----BEGIN"
        handler[metadataKey: "Authorization"] = .dictionary(["scheme": "Bearer"])
        #expect(handler.logLevel == .debug)
        #expect(handler.metadata["apple.PrivateKey"] == .string(LogRedaction.placeholder))
        #expect(handler.metadata["Authorization"] == .string(LogRedaction.placeholder))
        #expect(handler.metadata["secret"] == .string(LogRedaction.placeholder))
        #expect(handler.metadata["stage"] == "grant")
    }

    @Test func readsSettingsFromTheEnvironment() throws {
        let settings = try HostSettings(
            process: "p", reader: SettingsReader(environment: ["IAP_LOG_FORMAT": "JSON", "IAP_LOG_LEVEL": "debug"]))
        #expect(settings.logFormat == .json)
        #expect(settings.logLevel == .debug)
        let defaults = try HostSettings(process: "p", reader: SettingsReader(environment: [:]))
        #expect(defaults.logFormat == .text && defaults.logLevel == .info)
        #expect(throws: SettingsError.self) {
            try HostSettings(process: "p", reader: SettingsReader(environment: ["IAP_LOG_FORMAT": "xml"]))
        }
    }
}
