internal import CRdKafka

/// Builds an `rd_kafka_conf_t` from string properties.
///
/// Ownership: the returned pointer belongs to the caller until `rd_kafka_new` succeeds, after
/// which librdkafka owns it. `RDKafkaClient.make` is the only caller and follows that rule.
enum RDKafkaConfig {
    static func make(_ properties: [String: String]) throws(KafkaError) -> OpaquePointer {
        guard let conf = rd_kafka_conf_new() else {
            throw KafkaError(code: .configuration, message: "rd_kafka_conf_new returned NULL")
        }
        var errstr = [CChar](repeating: 0, count: 512)
        // Sorted for deterministic error reporting when several properties are wrong.
        for (key, value) in properties.sorted(by: { $0.key < $1.key }) {
            let result = rd_kafka_conf_set(conf, key, value, &errstr, errstr.count)
            if result != RD_KAFKA_CONF_OK {
                rd_kafka_conf_destroy(conf)
                let reason = String(decoding: errstr.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                throw KafkaError(code: .configuration, message: "property \(key): \(reason)")
            }
        }
        return conf
    }
}
