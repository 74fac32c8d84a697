public import AppStoreModels
import Basics

/// Appends compact JSON to a byte buffer, for the hand-written encoders of ``FastJSONWritable``.
///
/// The output is byte for byte what `JSONEncoder` writes with `[.sortedKeys,
/// .withoutEscapingSlashes]` (the pipeline's event format) as long as the caller writes the
/// fields in that sorted order: only `"`, `\` and control characters are escaped, everything
/// else is written as UTF-8. `FastJSONTests` holds every hand-written encoder to that.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    /// Whether the next key or element needs a comma before it.
    private var needsComma = false

    public init(capacity: Int = 1024) {
        self.bytes.reserveCapacity(capacity)
    }

    // MARK: Structure

    public mutating func beginObject() {
        self.bytes.append(UInt8(ascii: "{"))
        self.needsComma = false
    }

    public mutating func endObject() {
        self.bytes.append(UInt8(ascii: "}"))
        self.needsComma = true
    }

    public mutating func beginArray() {
        self.bytes.append(UInt8(ascii: "["))
        self.needsComma = false
    }

    public mutating func endArray() {
        self.bytes.append(UInt8(ascii: "]"))
        self.needsComma = true
    }

    /// Writes `"name":`; the value must follow. Names are the types' own ASCII field names.
    public mutating func key(_ name: StaticString) {
        self.separate()
        self.bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { self.bytes.append(contentsOf: $0) }
        self.bytes.append(UInt8(ascii: "\""))
        self.bytes.append(UInt8(ascii: ":"))
        self.needsComma = false
    }

    /// Writes `"name":` for a key that is data (a dictionary's), escaped as a string is; the
    /// caller writes a dictionary's keys in `String` order, as `JSONEncoder`'s `.sortedKeys` does.
    public mutating func key(_ name: String) {
        self.separate()
        self.string(name)
        self.bytes.append(UInt8(ascii: ":"))
        self.needsComma = false
    }

    /// Before an array element written with one of the value methods.
    public mutating func element() {
        self.separate()
    }

    private mutating func separate() {
        if self.needsComma { self.bytes.append(UInt8(ascii: ",")) }
    }

    // MARK: Values

    public mutating func string(_ value: String) {
        self.bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                self.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                self.escape(byte)
                start = index + 1
            }
            self.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        self.bytes.append(UInt8(ascii: "\""))
        self.needsComma = true
    }

    /// Digit by digit (``withDecimalDigits(of:_:)``): `String(value)` through `some BinaryInteger`
    /// was not specialized for the writers of other modules, and each call built a `String`.
    public mutating func int(_ value: Int64) {
        withDecimalDigits(of: value) { self.bytes.append(contentsOf: $0) }
        self.needsComma = true
    }

    public mutating func int(_ value: Int) {
        self.int(Int64(value))
    }

    public mutating func int(_ value: Int32) {
        self.int(Int64(value))
    }

    /// A timestamp as the events carry it (``Timestamp/iso8601``), written without a `String`.
    public mutating func timestamp(_ value: Timestamp) {
        self.bytes.append(UInt8(ascii: "\""))
        value.appendISO8601(to: &self.bytes)
        self.bytes.append(UInt8(ascii: "\""))
        self.needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        self.bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes)
        self.needsComma = true
    }

    public mutating func null() {
        self.bytes.append(contentsOf: Self.nullBytes)
        self.needsComma = true
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let nullBytes = Array("null".utf8)
    private static let hexDigits = Array("0123456789abcdef".utf8)

    private mutating func escape(_ byte: UInt8) {
        self.bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): self.bytes.append(byte)
        case 0x08: self.bytes.append(UInt8(ascii: "b"))
        case 0x0C: self.bytes.append(UInt8(ascii: "f"))
        case 0x0A: self.bytes.append(UInt8(ascii: "n"))
        case 0x0D: self.bytes.append(UInt8(ascii: "r"))
        case 0x09: self.bytes.append(UInt8(ascii: "t"))
        default:
            self.bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            self.bytes.append(Self.hexDigits[Int(byte >> 4)])
            self.bytes.append(Self.hexDigits[Int(byte & 0xF)])
        }
    }
}

// MARK: Field helpers

extension JSONWriter {
    /// `"name":"value"`, or nothing when `value` is nil (synthesized `Encodable` skips nil).
    public mutating func field(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        self.key(name)
        self.string(value)
    }

    public mutating func field(_ name: StaticString, _ value: Int?) {
        guard let value else { return }
        self.key(name)
        self.int(value)
    }

    public mutating func field(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        self.key(name)
        self.bool(value)
    }

    public mutating func field(_ name: StaticString, _ value: Timestamp?) {
        guard let value else { return }
        self.key(name)
        self.timestamp(value)
    }

    @inlinable
    public mutating func field<Value: FastJSONWritable>(_ name: StaticString, _ value: Value?) {
        guard let value else { return }
        self.key(name)
        value.write(to: &self)
    }

    /// Open enumerations and `String` enums, written as their raw value.
    @inlinable
    public mutating func field<Value: RawRepresentable>(_ name: StaticString, _ value: Value?)
    where Value.RawValue == String {
        guard let value else { return }
        self.key(name)
        self.string(value.rawValue)
    }

    @inlinable
    public mutating func field<Value: RawRepresentable>(_ name: StaticString, _ value: Value?)
    where Value.RawValue == Int32 {
        guard let value else { return }
        self.key(name)
        self.int(value.rawValue)
    }

    public mutating func field(_ name: StaticString, _ values: [String]) {
        self.key(name)
        self.beginArray()
        for value in values {
            self.element()
            self.string(value)
        }
        self.endArray()
    }
}

// MARK: Fields written as null when absent

extension JSONWriter {
    /// For contracts with a fixed shape (`iap.entitlement.v1`), where absent is `null`.
    public mutating func fieldOrNull(_ name: StaticString, _ value: String?) {
        self.key(name)
        if let value { self.string(value) } else { self.null() }
    }

    public mutating func fieldOrNull(_ name: StaticString, _ value: Timestamp?) {
        self.key(name)
        if let value { self.timestamp(value) } else { self.null() }
    }

    @inlinable
    public mutating func fieldOrNull<Value: RawRepresentable>(_ name: StaticString, _ value: Value?)
    where Value.RawValue == String {
        self.fieldOrNull(name, value?.rawValue)
    }

    public mutating func fieldOrNull(_ name: StaticString, _ value: Int64?) {
        self.key(name)
        if let value { self.int(value) } else { self.null() }
    }

    @inlinable
    public mutating func fieldOrNull<Value: RawRepresentable>(_ name: StaticString, _ value: Value?)
    where Value.RawValue == Int32 {
        self.fieldOrNull(name, value.map { Int64($0.rawValue) })
    }
}

// MARK: Apple's nested models, through Codable

extension JSONWriter {
    /// `"name":<value>` for one of Apple's nested models (commitment and Advanced Commerce info,
    /// D59), written by ``EventEncoder/encodeWithCodable(_:)`` so it is byte for byte what the
    /// `Codable` path writes; nothing when nil. Rare, so not worth a hand-written writer each.
    public mutating func field(_ name: StaticString, encoding value: (some Encodable)?) {
        guard let value, let bytes = try? EventEncoder.encodeWithCodable(value) else { return }
        self.key(name)
        self.bytes.append(contentsOf: bytes)
        self.needsComma = true
    }

    /// The same, `null` when absent, for contracts with a fixed shape.
    public mutating func fieldOrNull(_ name: StaticString, encoding value: (some Encodable)?) {
        guard let value, let bytes = try? EventEncoder.encodeWithCodable(value) else {
            self.key(name)
            self.null()
            return
        }
        self.key(name)
        self.bytes.append(contentsOf: bytes)
        self.needsComma = true
    }
}
