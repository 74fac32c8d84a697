import AppStoreModels
import Foundation
import Testing

/// The JWS header's hand-written reader (`CompactJWS.Header.read`) reads what `JSONDecoder` reads,
/// and leaves to it every header it is not sure of: a header decodes the same either way.
@Suite struct JWSHeaderReaderTests {
    static func decoded(_ json: String) -> CompactJWS.Header? {
        try? JSONDecoder().decode(CompactJWS.Header.self, from: Data(json.utf8))
    }

    @Test func appleHeadersReadAsJSONDecoderDecodesThem() throws {
        for path in Vectors.jwsFiles {
            let header = try #require(Base64.decode(try Vectors.text(path).utf8.prefix { $0 != UInt8(ascii: ".") }))
            let read = try #require(CompactJWS.Header.read(header), "\(path)")
            let decoded = try #require(try? JSONDecoder().decode(CompactJWS.Header.self, from: Data(header)))
            #expect(read.alg == decoded.alg && read.x5c == decoded.x5c, "\(path)")
            #expect(read.x5c?.count == 3, "\(path): Apple's chain")
        }
    }

    @Test(arguments: [
        #"{"alg":"ES256","x5c":["a","b"]}"#,
        #"{"alg":null,"x5c":null}"#,
        #"{}"#,
        #"{"x5c":[],"kid":{"n":[1,2.5e3,true,null]},"alg":"ES\u0032\u0035\u0036"}"#,
        " { \"alg\" : \"ES256\" } ",
    ])
    func headersTheReaderTakesDecodeTheSame(json: String) throws {
        let read = try #require(CompactJWS.Header.read(Array(json.utf8)))
        let decoded = try #require(Self.decoded(json))
        #expect(read.alg == decoded.alg && read.x5c == decoded.x5c)
    }

    @Test(arguments: [
        #"{"alg":1}"#, #"{"x5c":[null]}"#, #"{"x5c":"a"}"#, #"{"alg":"a","alg":"b"}"#, #"[]"#, #"{"alg":"ES256"} x"#,
        #"{"a\u006cg":"x"}"#,
    ])
    func headersTheReaderIsNotSureOfAreLeftToJSONDecoder(json: String) {
        #expect(CompactJWS.Header.read(Array(json.utf8)) == nil)
    }
}
