import Testing
import Kafka

@Test func linkedLibrdkafkaIsTwoPointZero() {
    #expect(LibrdKafka.version.hasPrefix("2."))
}
