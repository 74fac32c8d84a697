import Kafka
import Redis

public enum TestSupportInfo {
    public static let ready = true
}
