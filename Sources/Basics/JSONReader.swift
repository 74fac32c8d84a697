/// A strict pull parser over one JSON document, for hand-written decoders: `Contracts`'
/// `FastJSONReadable` types and the JWS header of `AppStoreModels`.
///
/// It reads only what those decoders need (objects, arrays of strings, strings, integers,
/// booleans, null) and throws on anything else, such as a fraction where an integer is
/// expected. Callers treat every throw as "let `JSONDecoder` decide": the fast path never
/// produces an error message of its own, so refusals read exactly as before.
public struct JSONReader {
    /// Why the fast path gave up, for debugging only (callers fall back to `JSONDecoder`).
    public struct Failure: Error, Sendable {
        /// Byte offset in the document; -1 when the failure is about a value rather than a
        /// position (a missing field, an unknown enumeration value, a wrong `schema`).
        public var offset: Int
        public var detail: String

        /// Public for readers outside this module (grant's state record, which lives beside
        /// its state type in `Purchases`).
        public init(offset: Int, detail: String) {
            self.offset = offset
            self.detail = detail
        }
    }

    private let bytes: [UInt8]
    private var index = 0
    /// One bit per open object or array, innermost lowest: set until its first member was read.
    private var firstMember: UInt64 = 0
    private var depth = 0
    /// The keys read so far in the open objects, outermost first, each object's after an
    /// `objectMark`: to notice a key repeated within one object.
    private var keys: [Range<Int>] = []
    private static let objectMark = -1..<(-1)

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    // MARK: Objects

    /// `bytes` as one object, each member read by `member` into `value` (which skips those it
    /// does not know with ``skipValue()``): the shape of a hand-written reader of a few fields.
    /// Nil when the reader gave up, for `JSONDecoder` to decide.
    public static func object<Value>(
        _ bytes: [UInt8], into value: Value,
        member: (inout JSONReader, JSONKey, inout Value) throws(Failure) -> Void
    ) -> Value? {
        var reader = JSONReader(bytes)
        var value = value
        do throws(Failure) {
            try reader.beginObject()
            while let key = try reader.nextKey() { try member(&reader, key, &value) }
            try reader.end()
            return value
        } catch {
            return nil
        }
    }

    public mutating func beginObject() throws(Failure) {
        try self.expect(UInt8(ascii: "{"))
        try self.open()
        self.keys.append(Self.objectMark)
    }

    /// The next key of the current object (its `:` consumed), or nil at its closing brace.
    ///
    /// A key the object already had throws: `JSONDecoder` keeps one of the two values (the
    /// first), a decoder here would keep the last, so the fast path leaves such text to it.
    public mutating func nextKey() throws(Failure) -> JSONKey? {
        guard try self.nextMember(closedBy: UInt8(ascii: "}")) else {
            if let mark = self.keys.lastIndex(of: Self.objectMark) { self.keys.removeSubrange(mark...) }
            return nil
        }
        self.skipWhitespace()
        let key = try self.keyRange()
        for earlier in self.keys.reversed() {
            if earlier == Self.objectMark { break }
            if earlier.count == key.count, self.bytes[earlier] == self.bytes[key] {
                throw self.failure("duplicate key")
            }
        }
        self.keys.append(key)
        try self.expect(UInt8(ascii: ":"))
        return JSONKey(storage: self.bytes, range: key)
    }

    // MARK: Arrays

    public mutating func beginArray() throws(Failure) {
        try self.expect(UInt8(ascii: "["))
        try self.open()
    }

    /// Whether another element follows (its comma consumed); false at the closing bracket.
    public mutating func nextElement() throws(Failure) -> Bool {
        try self.nextMember(closedBy: UInt8(ascii: "]"))
    }

    // MARK: Values

    /// True, and the `null` consumed, when the next value is `null`.
    public mutating func readNull() throws(Failure) -> Bool {
        self.skipWhitespace()
        guard self.peek == UInt8(ascii: "n") else { return false }
        try self.literal("null")
        return true
    }

    public mutating func string() throws(Failure) -> String {
        self.skipWhitespace()
        guard let string = try self.stringBytes().string else { throw self.failure("invalid UTF-8") }
        return string
    }

    /// A string's bytes, unescaped but not yet checked as UTF-8: for a value parsed from its
    /// bytes (a timestamp) rather than kept as a `String`.
    public mutating func rawString() throws(Failure) -> JSONKey {
        self.skipWhitespace()
        return try self.stringBytes()
    }

    /// nil for `null`, as `decodeIfPresent` reads it.
    public mutating func optionalString() throws(Failure) -> String? {
        try self.readNull() ? nil : try self.string()
    }

    public mutating func optionalInt() throws(Failure) -> Int? {
        try self.readNull() ? nil : try self.int()
    }

    public mutating func optionalBool() throws(Failure) -> Bool? {
        try self.readNull() ? nil : try self.bool()
    }

    public mutating func int() throws(Failure) -> Int {
        self.skipWhitespace()
        let negative = self.peek == UInt8(ascii: "-")
        if negative { self.index += 1 }
        let start = self.index
        var value = 0
        while let byte = self.peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { throw self.failure("integer out of range") }
            value = sum
            self.index += 1
        }
        let digits = self.index - start
        guard digits > 0, !(digits > 1 && self.bytes[start] == UInt8(ascii: "0")) else {
            throw self.failure("not an integer")
        }
        if let byte = self.peek, byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            throw self.failure("not an integer")
        }
        return negative ? -value : value
    }

    public mutating func bool() throws(Failure) -> Bool {
        self.skipWhitespace()
        if self.peek == UInt8(ascii: "t") {
            try self.literal("true")
            return true
        }
        try self.literal("false")
        return false
    }

    /// Skips one value of any kind, checking its syntax.
    public mutating func skipValue() throws(Failure) {
        self.skipWhitespace()
        switch self.peek {
        case UInt8(ascii: "{"):
            try self.beginObject()
            while try self.nextKey() != nil { try self.skipValue() }
        case UInt8(ascii: "["):
            try self.beginArray()
            while try self.nextElement() { try self.skipValue() }
        case UInt8(ascii: "\""):
            _ = try self.stringBytes()
        case UInt8(ascii: "t"): try self.literal("true")
        case UInt8(ascii: "f"): try self.literal("false")
        case UInt8(ascii: "n"): try self.literal("null")
        default: try self.skipNumber()
        }
    }

    /// The bytes of the next value, of any kind, its syntax checked: for a value a reader hands
    /// to `Codable` (`optionalDecoded` in `Contracts`), whose slice keeps the document's offsets.
    public mutating func valueBytes() throws(Failure) -> ArraySlice<UInt8> {
        self.skipWhitespace()
        let start = self.index
        try self.skipValue()
        return self.bytes[start..<self.index]
    }

    /// Checks that nothing but whitespace follows the document.
    public mutating func end() throws(Failure) {
        self.skipWhitespace()
        guard self.index == self.bytes.count, self.depth == 0 else { throw self.failure("trailing content") }
    }

    // MARK: Scanning

    private var peek: UInt8? { self.index < self.bytes.count ? self.bytes[self.index] : nil }

    private func failure(_ detail: String) -> Failure { Failure(offset: self.index, detail: detail) }

    private mutating func skipWhitespace() {
        while let byte = self.peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { self.index += 1 }
    }

    private mutating func expect(_ byte: UInt8) throws(Failure) {
        self.skipWhitespace()
        guard self.peek == byte else { throw self.failure("expected '\(Character(Unicode.Scalar(byte)))'") }
        self.index += 1
    }

    private mutating func literal(_ text: StaticString) throws(Failure) {
        let count = text.utf8CodeUnitCount
        guard self.index + count <= self.bytes.count,
            text.withUTF8Buffer({ $0.elementsEqual(self.bytes[self.index..<self.index + count]) })
        else { throw self.failure("expected \(text)") }
        self.index += count
    }

    private mutating func open() throws(Failure) {
        guard self.depth < 64 else { throw self.failure("nested too deeply") }
        self.firstMember = self.firstMember << 1 | 1
        self.depth += 1
    }

    private mutating func nextMember(closedBy close: UInt8) throws(Failure) -> Bool {
        self.skipWhitespace()
        let isFirst = self.firstMember & 1 == 1
        if self.peek == close {
            self.index += 1
            self.firstMember >>= 1
            self.depth -= 1
            return false
        }
        if isFirst {
            self.firstMember &= ~1
        } else {
            try self.expect(UInt8(ascii: ","))
        }
        return true
    }

    /// Skips a number as JSON's grammar has it, which is what `JSONDecoder` accepts: `+1`,
    /// `01`, `.5` or `1.` are refused although `Double` would read them.
    private mutating func skipNumber() throws(Failure) {
        if self.peek == UInt8(ascii: "-") { self.index += 1 }
        if self.peek == UInt8(ascii: "0") {
            self.index += 1
        } else {
            try self.skipDigits()
        }
        if self.peek == UInt8(ascii: ".") {
            self.index += 1
            try self.skipDigits()
        }
        if self.peek == UInt8(ascii: "e") || self.peek == UInt8(ascii: "E") {
            self.index += 1
            if self.peek == UInt8(ascii: "+") || self.peek == UInt8(ascii: "-") { self.index += 1 }
            try self.skipDigits()
        }
    }

    /// One digit or more.
    private mutating func skipDigits() throws(Failure) {
        let start = self.index
        while let byte = self.peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { self.index += 1 }
        guard self.index > start else { throw self.failure("not a number") }
    }

    /// A key's bytes in the document. A key with an escape is left to `JSONDecoder` (the
    /// pipeline's keys have none), so keys compare as slices of the document.
    private mutating func keyRange() throws(Failure) -> Range<Int> {
        guard self.peek == UInt8(ascii: "\"") else { throw self.failure("expected a key") }
        self.index += 1
        let start = self.index
        var highBits: UInt8 = 0
        while let byte = self.peek, byte != UInt8(ascii: "\"") {
            guard byte >= 0x20, byte != UInt8(ascii: "\\") else {
                throw self.failure("escape or control character in a key")
            }
            highBits |= byte
            self.index += 1
        }
        guard self.peek != nil else { throw self.failure("unterminated key") }
        let key = start..<self.index
        self.index += 1
        // `JSONDecoder` refuses an object it decodes when any of its keys is not UTF-8.
        guard highBits < 0x80 || String(validating: self.bytes[key], as: UTF8.self) != nil else {
            throw self.failure("key is not UTF-8")
        }
        return key
    }

    /// Reads a string at the current position; unescaped strings stay a slice of the input.
    private mutating func stringBytes() throws(Failure) -> JSONKey {
        guard self.peek == UInt8(ascii: "\"") else { throw self.failure("expected a string") }
        self.index += 1
        let start = self.index
        self.skipPlainStringBytes()
        while let byte = self.peek {
            switch byte {
            case UInt8(ascii: "\""):
                self.index += 1
                return JSONKey(storage: self.bytes, range: start..<self.index - 1)
            case UInt8(ascii: "\\"):
                return try self.unescapedString(from: start)
            case ..<0x20:
                throw self.failure("control character in a string")
            default:
                self.index += 1
            }
        }
        throw self.failure("unterminated string")
    }

    /// Moves past the bytes a string holds as they are (no quote, backslash or control
    /// character), eight at a time: a JWS header's `x5c` is ~3 KB of them, and the per-byte
    /// `peek` loop was 2.4 % of a JWS verification. The word holding one of the three, and a
    /// tail shorter than a word, are left to that loop (`stringBytes`), which decides.
    private mutating func skipPlainStringBytes() {
        self.index = self.bytes.withUnsafeBytes { buffer in
            var index = self.index
            while index + 8 <= buffer.count,
                !Self.holdsQuoteBackslashOrControl(buffer.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            {
                index += 8
            }
            return index
        }
    }

    /// Whether any byte of `word` is `"`, `\` or below 0x20 (the classic "has zero byte" and
    /// "has byte less than" tests, which never miss one; a false alarm only ends the fast scan).
    @inline(__always)
    private static func holdsQuoteBackslashOrControl(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let control = (word &- ones &* 0x20) & ~word & highs != 0
        return hasZeroByte(quote) || hasZeroByte(backslash) || control
    }

    private mutating func unescapedString(from start: Int) throws(Failure) -> JSONKey {
        var decoded = Array(self.bytes[start..<self.index])
        while let byte = self.peek {
            self.index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return JSONKey(storage: decoded, range: 0..<decoded.count)
            case UInt8(ascii: "\\"):
                guard let escaped = self.peek else { throw self.failure("unterminated string") }
                self.index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escaped)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"): decoded.append(contentsOf: try self.unicodeEscape())
                default: throw self.failure("invalid escape")
                }
            case ..<0x20:
                throw self.failure("control character in a string")
            default:
                decoded.append(byte)
            }
        }
        throw self.failure("unterminated string")
    }

    /// The UTF-8 of a `\uXXXX` escape (the `\u` consumed), joining a surrogate pair.
    private mutating func unicodeEscape() throws(Failure) -> [UInt8] {
        let high = try self.hex4()
        var scalarValue = UInt32(high)
        if (0xD800..<0xDC00).contains(high) {
            try self.literal("\\u")
            let low = try self.hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw self.failure("unpaired surrogate") }
            scalarValue = 0x10000 + (UInt32(high - 0xD800) << 10) + UInt32(low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(scalarValue) else { throw self.failure("unpaired surrogate") }
        return Array(String(Character(scalar)).utf8)
    }

    /// Exactly four hex digits: `UInt16(_:radix:)` would also take a sign (`\u+041`), which
    /// `JSONDecoder` refuses.
    private mutating func hex4() throws(Failure) -> UInt16 {
        guard self.index + 4 <= self.bytes.count else { throw self.failure("invalid \\u escape") }
        var value: UInt16 = 0
        for byte in self.bytes[self.index..<self.index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw self.failure("invalid \\u escape")
            }
            value = value << 4 | UInt16(digit)
        }
        self.index += 4
        return value
    }
}

/// A key (or string) as read: a slice of the document, compared without making a `String`.
///
/// `switch key { case "transactionId": … }` matches through the `~=` below.
public struct JSONKey {
    fileprivate let storage: [UInt8]
    fileprivate let range: Range<Int>

    /// nil when the bytes are not valid UTF-8 (which `JSONDecoder` refuses too).
    ///
    /// ASCII, nearly every string of an event, is valid as it is and made without
    /// `String(validating:as:)`, whose validation is generic over the encoding and not
    /// specialized (1 % of a worker's CPU, docs/performance.md, session 22).
    public var string: String? {
        self.withUTF8 { utf8 in
            Self.isASCII(utf8) ? String(decoding: utf8, as: UTF8.self) : String(validating: utf8, as: UTF8.self)
        }
    }

    /// The key's bytes as read (unescaped, not checked as UTF-8), for a caller that parses them
    /// without making a `String`.
    public func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        self.storage.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[self.range])) }
    }

    /// Whether every byte is below 0x80, eight at a time.
    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let raw = UnsafeRawBufferPointer(bytes)
        var index = 0
        var high: UInt64 = 0
        while index + 8 <= raw.count {
            high |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        var tail: UInt8 = 0
        while index < raw.count {
            tail |= raw[index]
            index += 1
        }
        return high & 0x8080_8080_8080_8080 == 0 && tail < 0x80
    }

    public static func ~= (pattern: StaticString, key: JSONKey) -> Bool {
        pattern.utf8CodeUnitCount == key.range.count
            && pattern.withUTF8Buffer { $0.elementsEqual(key.storage[key.range]) }
    }
}
