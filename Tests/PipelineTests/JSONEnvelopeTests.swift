import Testing
@testable import Pipeline

private struct Sample: Decodable {
    var schema: String
    var eventId: String
    var count: Int
}

@Suite(.timeLimit(.minutes(2))) struct JSONEnvelopeTests {
    private func reject(_ text: String) -> Rejection? {
        do {
            _ = try JSONEnvelope.decode(Sample.self, from: Array(text.utf8), schemas: ["s.v1"])
            return nil
        } catch {
            return error
        }
    }

    @Test func decodesAKnownSchema() throws {
        let sample = try JSONEnvelope.decode(Sample.self, from: Array(#"{"schema":"s.v1","eventId":"e","count":2,"extra":true}"#.utf8), schemas: ["s.v1"])
        #expect(sample.count == 2)
    }

    @Test(arguments: ["", "not json", "[1,2]", "\u{0}\u{1}", #"{"schema": 5}"#])
    func nonObjectsAreMalformed(text: String) {
        #expect(reject(text)?.reason == .malformedEvent)
    }

    @Test func missingSchemaAndFieldsAreNamed() {
        #expect(reject(#"{"eventId":"e"}"#)?.detail == "missing required field \"schema\"")
        let missing = reject(#"{"schema":"s.v1","count":1}"#)
        #expect(missing?.reason == .malformedEvent)
        #expect(missing?.detail == "missing required field \"eventId\"")
        #expect(reject(#"{"schema":"s.v1","eventId":"e","count":"x"}"#)?.detail.hasPrefix("field \"count\"") == true)
    }

    @Test func unknownSchemaIsUnsupported() {
        let rejection = reject(#"{"schema":"s.v2","eventId":"e","count":1}"#)
        #expect(rejection?.reason == .unsupportedSchema)
        #expect(rejection?.detail.contains("s.v2") == true)
    }
}
