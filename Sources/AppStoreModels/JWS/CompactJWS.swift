import Basics
import Foundation

/// A compact JWS (`header.payload.signature`) split and decoded, not yet trusted.
package struct CompactJWS: Sendable {
    /// The protected header fields `UnverifiedJWS` and the verifier act on; other fields are ignored.
    package struct Header: Decodable, Sendable {
        package var alg: String?
        package var x5c: [String]?
    }

    /// Larger inputs are refused before any decoding: the biggest legitimate payload (a
    /// notification with two nested JWS) is around 20 KB.
    package static let maximumLength = 256 * 1024

    package var header: Header
    /// The raw JSON of the header segment.
    package var headerJSON: [UInt8]
    /// The raw JSON of the payload segment.
    package var payload: [UInt8]
    package var signature: [UInt8]
    /// The ASCII bytes `header.payload` the signature covers.
    package var signingInput: ArraySlice<UInt8>

    package init(_ text: String) throws(VerificationError) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw VerificationError(.invalidJWTFormat, "empty input") }
        guard bytes.count <= Self.maximumLength else {
            throw VerificationError(.invalidJWTFormat, "input of \(bytes.count) bytes exceeds \(Self.maximumLength)")
        }
        guard let (firstDot, secondDot) = Self.dots(in: bytes) else {
            throw VerificationError(.invalidJWTFormat, "expected 3 dot-separated segments")
        }

        guard let headerJSON = Base64.decode(bytes[..<firstDot]),
            let payload = Base64.decode(bytes[(firstDot + 1)..<secondDot]),
            let signature = Base64.decode(bytes[(secondDot + 1)...])
        else { throw VerificationError(.invalidJWTFormat, "a segment is not base64url") }
        guard !payload.isEmpty else { throw VerificationError(.invalidJWTFormat, "empty payload") }

        if let header = Header.read(headerJSON) {
            self.header = header
        } else {
            do {
                self.header = try JSONDecoder().decode(Header.self, from: Data(headerJSON))
            } catch {
                throw VerificationError(.invalidJWTFormat, "header is not a JSON object with string alg/x5c")
            }
        }
        self.headerJSON = headerJSON
        self.payload = payload
        self.signature = signature
        self.signingInput = bytes[..<secondDot]
    }

    /// Where the two dots of exactly three segments are, found by `memchr`: the byte-by-byte
    /// search over a ~7 KB JWS was 2 % of a verification.
    private static func dots(in bytes: [UInt8]) -> (Int, Int)? {
        bytes.withUnsafeBufferPointer { buffer -> (Int, Int)? in
            guard let base = buffer.baseAddress else { return nil }
            func dot(from start: Int) -> Int? {
                guard start < buffer.count,
                    let found = memchr(base + start, Int32(UInt8(ascii: ".")), buffer.count - start)
                else { return nil }
                return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            }
            guard let first = dot(from: 0), let second = dot(from: first + 1), dot(from: second + 1) == nil else {
                return nil
            }
            return (first, second)
        }
    }

    /// Decodes the payload JSON without any trust decision.
    package func decodePayload<Payload: Decodable>(as type: Payload.Type) throws(VerificationError) -> Payload {
        try Self.decode(self.payload, as: type)
    }

    package static func decode<Payload: Decodable>(_ json: [UInt8], as type: Payload.Type) throws(VerificationError)
        -> Payload
    {
        if let handRead = type as? any HandReadPayload.Type, let payload = handRead.read(json) as? Payload {
            return payload
        }
        do {
            return try JSONDecoder().decode(type, from: Data(json))
        } catch {
            throw VerificationError(.invalidJWTFormat, "payload does not decode as \(type): \(error)")
        }
    }
}

extension CompactJWS.Header {
    /// The header through `JSONReader`: `JSONDecoder` cost intake a tenth of its CPU on the
    /// certificate chain of every signed transaction (intake reads a JWS only for its routing
    /// key). Nil when the reader gives up, and `JSONDecoder` decides as before, with its refusal.
    package static func read(_ json: [UInt8]) -> Self? {
        JSONReader.object(json, into: Self()) { reader, key, header throws(JSONReader.Failure) in
            switch key {
            case "alg": header.alg = try reader.optionalString()
            case "x5c":
                guard try !reader.readNull() else {
                    header.x5c = nil
                    return
                }
                var chain: [String] = []
                try reader.beginArray()
                while try reader.nextElement() { chain.append(try reader.string()) }
                header.x5c = chain
            default: try reader.skipValue()
            }
        }
    }
}
