import Basics
import Testing

/// Escapes in either case decode to their bytes, which must make UTF-8; anything short of two
/// hex digits after a `%` is refused, never passed through.
@Suite struct PercentDecodingTests {
    @Test func escapesDecodeToTheirBytes() {
        #expect(percentDecoded("u-1") == "u-1")
        #expect(percentDecoded("p%40ss%3Aw%2frd%25") == "p@ss:w/rd%")
        #expect(percentDecoded("jos%C3%A9%20n%2F1") == "josé n/1")
        #expect(percentDecoded("a+b") == "a+b", "a plus is not a space in a path or a user name")
        #expect(percentDecoded("x@y:z".dropFirst(2)) == "y:z")
    }

    @Test func malformedEscapesAndBytesThatAreNotUTF8AreRefused() {
        for text in ["100%", "%4", "%zz", "%G0", "jos%C3", "%FF"] {
            #expect(percentDecoded(text) == nil, "\(text)")
        }
    }
}
