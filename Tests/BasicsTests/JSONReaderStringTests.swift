import Basics
import Foundation
import Testing

/// The string scan skips plain bytes eight at a time; a quote, an escape or a control
/// character must be found wherever it falls in a word, and a string read the same as
/// `JSONDecoder` reads it.
@Suite struct JSONReaderStringTests {
    static let plain = "abcdefghijklmnopqrstuvwxyz0123456789"

    @Test(arguments: 0..<24) func anEscapeAnywhereIsDecoded(at offset: Int) throws {
        for (escape, meaning) in [("\\\"", "\""), ("\\\\", "\\"), ("\\n", "\n"), ("\\u00e9", "é"), ("\\/", "/")] {
            let prefix = String(Self.plain.prefix(offset))
            let json = "\"\(prefix)\(escape)\(Self.plain)\""
            var reader = JSONReader(Array(json.utf8))
            #expect(try reader.string() == prefix + meaning + Self.plain)
            #expect(try JSONDecoder().decode(String.self, from: Data(json.utf8)) == prefix + meaning + Self.plain)
        }
    }

    @Test(arguments: 0..<24) func theClosingQuoteEndsTheStringWhereverItFalls(at length: Int) throws {
        let text = String(Self.plain.prefix(length)) + "é"
        var reader = JSONReader(Array("[\"\(text)\",\"next\"]".utf8))
        try reader.beginArray()
        #expect(try reader.nextElement())
        #expect(try reader.string() == text)
        #expect(try reader.nextElement())
        #expect(try reader.string() == "next")
    }

    @Test(arguments: 0..<24) func aControlCharacterAnywhereIsRefused(at offset: Int) {
        for control: UInt8 in [0x00, 0x01, 0x0A, 0x1F] {
            let bytes = Array("\"\(Self.plain.prefix(offset))".utf8) + [control] + Array("\(Self.plain)\"".utf8)
            var reader = JSONReader(bytes)
            #expect(throws: JSONReader.Failure.self) { try reader.string() }
            #expect(throws: (any Error).self) { try JSONDecoder().decode(String.self, from: Data(bytes)) }
        }
    }

    /// ASCII is made into a `String` without validation; one byte of more than seven bits
    /// anywhere must send the string through it.
    @Test(arguments: 0..<24) func aByteBeyondASCIIAnywhereIsValidated(at offset: Int) throws {
        let prefix = Array(Self.plain.prefix(offset).utf8)
        let valid = prefix + Array("é".utf8) + Array(Self.plain.utf8)
        var reader = JSONReader([UInt8(ascii: "\"")] + valid + [UInt8(ascii: "\"")])
        #expect(try reader.string() == String(decoding: valid, as: UTF8.self))
        for invalid: [UInt8] in [[0xFF], [0xC3], [0x80], [0xED, 0xA0, 0x80]] {
            let bytes = [UInt8(ascii: "\"")] + prefix + invalid + Array(Self.plain.utf8) + [UInt8(ascii: "\"")]
            var reader = JSONReader(bytes)
            #expect(throws: JSONReader.Failure.self) { try reader.string() }
            #expect(throws: (any Error).self) { try JSONDecoder().decode(String.self, from: Data(bytes)) }
        }
    }

    @Test func aStringsBytesAreReadUnescaped() throws {
        var reader = JSONReader(Array(#"["plain", "esc\u0061ped"]"#.utf8))
        try reader.beginArray()
        #expect(try reader.nextElement())
        #expect(try reader.rawString().withUTF8 { Array($0) } == Array("plain".utf8))
        #expect(try reader.nextElement())
        #expect(try reader.rawString().withUTF8 { Array($0) } == Array("escaped".utf8))
    }

    @Test func anUnterminatedStringIsRefused() {
        for length in 0..<20 {
            var reader = JSONReader(Array("\"\(Self.plain.prefix(length))".utf8))
            #expect(throws: JSONReader.Failure.self) { try reader.string() }
        }
    }
}
