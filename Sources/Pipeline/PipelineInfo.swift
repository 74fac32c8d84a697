import Kafka
import Redis

/// Versions of the C libraries the runtime runs on.
public enum PipelineInfo {
    public static var libraryVersions: String { "librdkafka \(LibrdKafka.version), hiredis \(Hiredis.version)" }
}
