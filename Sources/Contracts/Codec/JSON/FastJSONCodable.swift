public import AppStoreModels
public import Basics

/// A type with a hand-written JSON encoder, used by ``EventEncoder`` instead of `JSONEncoder`.
///
/// Every record a worker handles is decoded and encoded at least once, and `JSONEncoder` /
/// `JSONDecoder` were a quarter of each stage's CPU (docs/performance.md, session 5). The
/// hand-written forms cover only the types every purchase goes through; their output is held
/// byte-identical to `JSONEncoder`'s by `FastJSONTests`, and `Codable` stays the reference.
public protocol FastJSONWritable {
    /// Writes the value exactly as its `Encodable` conformance does under sorted keys.
    func write(to json: inout JSONWriter)
}

/// A type with a hand-written JSON decoder, tried by ``EventDecoder`` before `JSONDecoder`.
///
/// Any failure falls back to `JSONDecoder`, which then succeeds or reports the refusal in its
/// usual words, so the fast path changes speed only.
public protocol FastJSONReadable {
    /// Reads one value at the reader's position, as its `Decodable` conformance would.
    init(from json: inout JSONReader) throws(JSONReader.Failure)
}

public typealias FastJSONCodable = FastJSONReadable & FastJSONWritable

// MARK: Typed reads

extension JSONReader {
    /// Parsed from the string's bytes: no `String` is made for the canonical form events carry.
    public mutating func timestamp() throws(Failure) -> Timestamp {
        guard let timestamp = try self.rawString().withUTF8({ Timestamp(iso8601UTF8: $0) }) else {
            throw Failure(offset: -1, detail: "not a timestamp")
        }
        return timestamp
    }

    public mutating func optionalTimestamp() throws(Failure) -> Timestamp? {
        try self.readNull() ? nil : try self.timestamp()
    }

    /// Open enumerations and `String` enums from their raw value.
    @inlinable
    public mutating func optionalRaw<Value: RawRepresentable>(_: Value.Type = Value.self) throws(Failure) -> Value?
    where Value.RawValue == String {
        if try self.readNull() { return nil }
        guard let value = Value(rawValue: try self.string()) else {
            throw Failure(offset: -1, detail: "unknown \(Value.self)")
        }
        return value
    }

    @inlinable
    public mutating func optionalRaw<Value: RawRepresentable>(_: Value.Type = Value.self) throws(Failure) -> Value?
    where Value.RawValue == Int32 {
        if try self.readNull() { return nil }
        guard let raw = Int32(exactly: try self.int()), let value = Value(rawValue: raw) else {
            throw Failure(offset: -1, detail: "unknown \(Value.self)")
        }
        return value
    }

    /// A required open enumeration or `String` enum (`null` fails).
    @inlinable
    public mutating func raw<Value: RawRepresentable>(_: Value.Type = Value.self) throws(Failure) -> Value
    where Value.RawValue == String {
        guard let value = try self.optionalRaw(Value.self) else {
            throw Failure(offset: -1, detail: "null \(Value.self)")
        }
        return value
    }

    @inlinable
    public mutating func optional<Value: FastJSONReadable>(_: Value.Type = Value.self) throws(Failure) -> Value? {
        try self.readNull() ? nil : try Value(from: &self)
    }

    public mutating func strings() throws(Failure) -> [String] {
        var values: [String] = []
        try self.beginArray()
        while try self.nextElement() { values.append(try self.string()) }
        return values
    }

    /// The value of a field a decoder requires; a missing field fails the fast path.
    public static func required<Value>(_ value: Value?, _ name: StaticString) throws(Failure) -> Value {
        guard let value else { throw Failure(offset: -1, detail: "missing field '\(name)'") }
        return value
    }
}
