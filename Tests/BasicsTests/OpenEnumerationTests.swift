import Basics
import Foundation
import Testing

@Suite struct OpenEnumerationTests {
    struct Flavour: OpenEnumeration {
        let rawValue: String
        static let vanilla = Flavour(rawValue: "vanilla")
    }

    @Test func codesAsTheBareRawValueAndKeepsUnknownValues() throws {
        let encoded = try JSONEncoder().encode([Flavour.vanilla, Flavour(rawValue: "pistachio")])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["vanilla","pistachio"]"#)
        let decoded = try JSONDecoder().decode([Flavour].self, from: encoded)
        #expect(decoded == [.vanilla, Flavour(rawValue: "pistachio")])
        #expect(Flavour.vanilla.description == "vanilla")
    }
}
