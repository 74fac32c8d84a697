import Foundation
import Testing

@testable import AppStoreModels

/// JWS segments and `x5c` entries go through our own decoder, four characters at a time with
/// a tail; it must agree with Foundation's on every length and refuse what Foundation refuses.
@Suite struct Base64Tests {
    @Test func decodesWhatFoundationEncodesAtEveryLength() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let standard = Data(bytes).base64EncodedString()
            let unpadded = standard.replacingOccurrences(of: "=", with: "")
            let urlSafe = unpadded.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            #expect(Base64.decode(Array(standard.utf8)) == bytes, "padded, \(length) bytes")
            #expect(Base64.decode(Array(unpadded.utf8)) == bytes, "unpadded, \(length) bytes")
            #expect(Base64.decode(Array(urlSafe.utf8)) == bytes, "base64url, \(length) bytes")
        }
    }

    /// A bad character in any of a group's four places, or in the tail, refuses the whole input.
    @Test func aCharacterOutsideTheAlphabetAnywhereIsRefused() {
        let valid = Array("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo".utf8)  // 35 characters: 8 groups and a tail of 3
        #expect(Base64.decode(valid) != nil)
        for position in valid.indices {
            for bad in [UInt8(ascii: "."), UInt8(ascii: "="), UInt8(ascii: " "), 0x80, 0xFF] {
                var input = valid
                input[position] = bad
                #expect(Base64.decode(input) == nil, "\(bad) at \(position)")
            }
        }
    }

    @Test func impossibleLengthsAndMisplacedPaddingAreRefused() {
        #expect(Base64.decode(Array("Q".utf8)) == nil)
        #expect(Base64.decode(Array("QUJDR".utf8)) == nil)
        #expect(Base64.decode(Array("QQ=".utf8)) == nil)
        #expect(Base64.decode(Array("Q===".utf8)) == nil)
        #expect(Base64.decode(Array("".utf8)) == [])
    }
}
