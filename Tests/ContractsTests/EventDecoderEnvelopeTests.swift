import Contracts
import Testing

/// The envelope every topic shares: `schema` first, then the event's fields. What the runtime
/// needs for the reject topic is told apart: not JSON or a missing field (`malformed_event`,
/// naming the field) versus a schema the stage does not read (`unsupported_schema`). (Moved
/// from the runtime's `JSONEnvelope`, which duplicated this decoder and is gone.)
@Suite(.timeLimit(.minutes(2))) struct EventDecoderEnvelopeTests {
    private func reject(_ text: String) -> Rejection? {
        do {
            _ = try EventDecoder.decode(OrderEvent.self, from: Array(text.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test func decodesAKnownSchemaIgnoringUnknownFields() throws {
        let text =
            #"{"schema":"iap.order.v1","orderId":"o","userId":"u","productId":"p","bundleId":"b","quantity":2,"extra":true}"#
        let order = try EventDecoder.decode(OrderEvent.self, from: Array(text.utf8))
        #expect(order.quantity == 2)
    }

    @Test(arguments: ["", "not json", "[1,2]", "\u{0}\u{1}", #"{"schema": 5}"#])
    func nonObjectsAreMalformed(text: String) {
        #expect(reject(text)?.reason == .malformedEvent)
    }

    @Test func missingSchemaAndFieldsAreNamed() {
        #expect(reject(#"{"orderId":"o"}"#)?.detail == "missing field 'schema'")
        let missing = reject(#"{"schema":"iap.order.v1","userId":"u","productId":"p","bundleId":"b"}"#)
        #expect(missing?.reason == .malformedEvent)
        #expect(missing?.detail == "missing field 'orderId'")
        let mistyped = reject(
            #"{"schema":"iap.order.v1","orderId":"o","userId":"u","productId":"p","bundleId":"b","quantity":"x"}"#)
        #expect(mistyped?.detail.hasPrefix("field 'quantity'") == true)
    }

    @Test func unknownSchemaIsUnsupported() {
        let rejection = reject(#"{"schema":"iap.order.v2","orderId":"o"}"#)
        #expect(rejection?.reason == .unsupportedSchema)
        #expect(rejection?.detail.contains("iap.order.v2") == true)
    }
}
