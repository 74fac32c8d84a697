import Foundation
import Settings
import Testing

@Suite(.timeLimit(.minutes(2))) struct SettingsReaderTests {
    static let port = Setting<Int>.port("IAP_TEST_PORT", "a port", default: 9100)
    static let password = Setting<String>.text("IAP_TEST_PASSWORD", "a secret", secret: true)
    static let timeout = Setting<Duration>.seconds("IAP_TEST_SECONDS", "a duration", default: "2.5")

    /// A settings file in a fresh directory.
    func file(_ contents: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("settings-\(UUID().uuidString).env")
            .path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func environmentThenFileThenDefault() async throws {
        let path = try file("# comment\nIAP_TEST_PORT=7000\nIAP_TEST_SECONDS=4\n")
        let reader = try await SettingsReader.load(environment: ["IAP_CONFIG_FILE": path, "IAP_TEST_SECONDS": "1"])
        #expect(try reader.value(Self.port) == 7000)
        #expect(reader.lookup("IAP_TEST_PORT")?.source == .file)
        #expect(try reader.value(Self.timeout) == .seconds(1))
        #expect(reader.lookup("IAP_TEST_SECONDS")?.source == .environment)
        #expect(try SettingsReader(environment: [:]).value(Self.timeout) == .milliseconds(2500))
        #expect(reader.names.contains("IAP_TEST_PORT"))
    }

    @Test func aNamedFileThatCannotBeReadIsAnError() async throws {
        await #expect(throws: SettingsError.self) {
            try await SettingsReader.load(environment: ["IAP_CONFIG_FILE": "/nonexistent/iap.env"])
        }
    }

    @Test func aBadValueNamesItsKeyAndHidesSecrets() throws {
        let reader = SettingsReader(environment: ["IAP_TEST_PORT": "70000", "IAP_TEST_PASSWORD": " "])
        #expect { try reader.value(Self.port) } throws: { error in
            let error = error as? SettingsError
            return error?.code == .invalidValue && error?.key == "IAP_TEST_PORT" && error!.message.contains("'70000'")
        }
        // Blank counts as unset, so a required secret is reported missing, never echoed.
        #expect { try reader.required(Self.password, by: "test") } throws: { ($0 as? SettingsError)?.code == .missing }
        let secret = Setting<Int>("IAP_TEST_PIN", "a secret number", expecting: "digits", secret: true) { Int($0) }
        #expect { try SettingsReader(environment: ["IAP_TEST_PIN": "hunter2"]).optional(secret) } throws: { error in
            "\(error)".contains("***") && !"\(error)".contains("hunter2")
        }
    }

    @Test func unknownProjectKeysAreRefusedWithASuggestion() throws {
        let catalog = SettingsCatalog(
            sections: [SettingsSection("Test", readBy: "tests", [Self.port.descriptor])],
            prefixes: [("IAP_KAFKA_", "librdkafka")])
        let reader = SettingsReader(environment: [
            "IAP_TEST_PRT": "1", "IAP_KAFKA_LINGER_MS": "5", "PATH": "/bin", "IAP_TEST_PORT": "1",
        ])
        #expect(catalog.unknownNames(in: reader) == ["IAP_TEST_PRT"])
        #expect { try catalog.refuseUnknownNames(in: reader) } throws: { error in
            (error as? SettingsError)?.code == .unknownKey && "\(error)".contains("did you mean IAP_TEST_PORT?")
        }
    }

    @Test func tableListsEveryKeyWithItsDefault() {
        let catalog = SettingsCatalog(sections: [
            SettingsSection("Test", readBy: "tests", [Self.port.descriptor, Self.password.descriptor])
        ])
        #expect(
            catalog.markdown.contains(
                "| `IAP_TEST_PORT` | `9100` | a port number 0–65535 (0 = any free port) | a port |"))
        #expect(catalog.markdown.contains("| `IAP_TEST_PASSWORD` | – | text (secret) | a secret |"))
    }
}
