/// One Kafka record header. Values are bytes; `nil` is a header with no value, which Kafka allows.
public struct KafkaHeader: Hashable, Sendable {
    public var name: String
    public var value: [UInt8]?

    public init(name: String, value: [UInt8]?) {
        self.name = name
        self.value = value
    }

    public init(name: String, string: String) {
        self.init(name: name, value: Array(string.utf8))
    }

    /// The value as UTF-8 text, for the string-valued headers the pipeline writes.
    public var stringValue: String? { value.map { String(decoding: $0, as: UTF8.self) } }
}

extension Array where Element == KafkaHeader {
    /// The last header with this name; later headers win, as in Kafka clients generally.
    public func last(named name: String) -> KafkaHeader? { self.last { $0.name == name } }
}
