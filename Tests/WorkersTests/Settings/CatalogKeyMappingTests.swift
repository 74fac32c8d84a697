import AppStore
import Foundation
import Hosting
import Logging
import Pipeline
import Purchases
import Settings
import Testing
import WorkerCommon

/// The keys the catalog declares over words (`Catalog` links no `AppStore`, `Purchases` or
/// swift-log) are read as their types by the settings structs through `Setting.map`: every word
/// the table lists must stand for a value, and each value keep its word.
@Suite struct CatalogKeyMappingTests {
    /// The words of a choice, from its expectation (`one of a, b, c`).
    static func words(_ descriptor: SettingDescriptor) throws -> [String] {
        let expectation = descriptor.expectation
        try #require(expectation.hasPrefix("one of "), "\(descriptor.name): \(expectation)")
        return expectation.dropFirst("one of ".count).components(separatedBy: ", ")
    }

    static func read<Value>(_ setting: Setting<Value>, _ word: String) throws -> Value {
        try SettingsReader(environment: [setting.name: word]).value(setting)
    }

    @Test func everyWordOfAMappedChoiceIsAValue() throws {
        func check<Value>(_ setting: Setting<Value>) throws {
            for word in try Self.words(setting.descriptor) { _ = try Self.read(setting, word) }
            _ = try SettingsReader(environment: [:]).optional(setting)
        }
        try check(HostSettings.logFormat)
        try check(HostSettings.logLevel)
        try check(StageSettings.receiptValidationKey)
        try check(StageSettings.ocspUnreachableKey)
        try check(StageSettings.tokenSchemeKey)
        try check(StageSettings.consumptionRefundPreferenceKey)
    }

    @Test func theWordsAreTheTypesValues() throws {
        #expect(try Self.words(HostSettings.logFormat.descriptor) == LogFormat.allCases.map(\.rawValue).sorted())
        #expect(try Self.words(HostSettings.logLevel.descriptor) == Logger.Level.allCases.map(\.rawValue).sorted())
        for level in Logger.Level.allCases { #expect(try Self.read(HostSettings.logLevel, level.rawValue) == level) }
        #expect(try Self.read(HostSettings.logLevel, "WARNING") == .warning)
        #expect(
            try Self.words(StageSettings.tokenSchemeKey.descriptor) == AppAccountTokenScheme.settingNames.keys.sorted())
        for (word, scheme) in AppAccountTokenScheme.settingNames {
            #expect(try Self.read(StageSettings.tokenSchemeKey, word) == scheme)
        }
        #expect(try Self.read(StageSettings.receiptValidationKey, "verifyReceipt") == .verifyReceipt)
        #expect(try Self.read(StageSettings.ocspUnreachableKey, "accept-offline") == .acceptOfflineChain)
        #expect(try Self.read(StageSettings.consumptionRefundPreferenceKey, "GRANT_FULL") == .grantFull)
        #expect(try Self.read(StageSettings.consumptionRefundPreferenceKey, "none") == nil)
        #expect(
            StageSettings.appleAPIURLKey.descriptor.defaultText
                == AppStoreServerAPIConfiguration.defaultProductionBaseURL)
        #expect(
            StageSettings.verifyReceiptURLKey.descriptor.defaultText
                == VerifyReceiptClient.Configuration.defaultProductionURL)
    }

    /// A bad word is refused with the same message as before the keys moved to the catalog.
    @Test func aBadWordIsRefusedNamingTheWords() {
        #expect {
            try Self.read(StageSettings.ocspUnreachableKey, "ignore")
        } throws: { error in
            "\(error)".contains("IAP_APPLE_OCSP_UNREACHABLE must be one of accept-offline, retry, not 'ignore'")
        }
        #expect(throws: SettingsError.self) { try Self.read(RedisSettings.url, "http://nowhere") }
    }
}
