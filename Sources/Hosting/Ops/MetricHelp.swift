/// The `# HELP` text of every metric family the project's processes serve (decision D28).
///
/// swift-metrics has no help text, and swift-prometheus' `PrometheusMetricsFactory` registers
/// every family with an empty one (a family pre-registered with help would then fail its
/// help-consistency check). So ``OpsServer`` adds the help at exposition: a family the registry
/// emitted without a `# HELP` line gets the one listed here. Families registered on the
/// registry with their own help (the process metrics) keep theirs. `MetricHelpTests` fails on
/// any family a process serves without help, so a new metric needs its line here.
public enum MetricHelp {
    /// Family name → help text.
    public static let catalog: [String: String] = [
        // Runtime (every worker)
        "iap_stage_messages_total":
            "Records the stage finished, by how they ended (outcome: produced, retried, waiting, rejected, skipped,"
            + " duplicate, dead_lettered).",
        "iap_stage_processing_seconds": "Time from taking a record to its durable outcome, in seconds.",
        "iap_stage_in_flight": "Records accepted by the stage and not finished yet.",
        "iap_stage_paused": "1 while the stage's partitions are paused at the in-flight bound, else 0.",
        "iap_stage_infrastructure_errors_total": "Kafka or Redis calls that failed and were retried in place.",
        "iap_stage_retrying_in_place":
            "Records this replica is trying again where they are (D68), each holding its partition's commit.",
        "iap_stage_retrying_in_place_oldest_seconds":
            "Age of this replica's oldest record retrying in place, from its first failure: how long its"
            + " partition's commit has been held.",
        "iap_retry_promoted_total": "Delayed retries re-published to the stage's input once due.",
        "iap_retry_queue_depth": "Delayed deliveries (retries and waits) the stage owes, due or not.",
        "iap_waiting_records":
            "Records the stage parked to wait (not failed), by what they wait for (waiting_for: order,"
            + " apple:<endpoint>:<environment>); the stage's, the same from every replica.",
        "iap_waiting_oldest_seconds":
            "Age of the stage's oldest parked wait, from when that record first waited; past the stage's"
            + " retry.maxWait it is dead-lettered.",
        // The worker's own view of its partitions (decision D26)
        "iap_consumer_lag":
            "High watermark minus committed offset of each partition this replica owns (kafka_exporter's names"
            + " come from the lag exporter only).",
        // The lag exporter (`iap lag --serve`, decision D26): kafka_exporter's names and help texts
        "kafka_consumergroup_lag":
            "Current Approximate Lag of a ConsumerGroup at Topic/Partition (no commit: high - low watermark, D26)",
        "kafka_consumergroup_lag_sum": "Current Approximate Lag of a ConsumerGroup at Topic for all partitions",
        "kafka_consumergroup_current_offset": "Current Offset of a ConsumerGroup at Topic/Partition (-1: no commit)",
        "kafka_consumergroup_current_offset_sum":
            "Current Offset of a ConsumerGroup at Topic for all partitions (committed ones)",
        "kafka_topic_partitions": "Number of partitions for this Topic",
        "kafka_topic_partition_current_offset": "Current Offset of a Broker at Topic/Partition",
        "kafka_topic_partition_oldest_offset": "Oldest Offset of a Broker at Topic/Partition",
        "iap_lag_exporter_up": "1 when the lag exporter's last Kafka queries succeeded, else 0",
        // Apple (verify)
        "iap_apple_request_duration_seconds":
            "Apple API calls by endpoint and answer (HTTP status, or transport/timeout), in seconds.",
        "iap_apple_ocsp_offline_accepts_total":
            "Certificate chains accepted on their offline checks because the OCSP responder could not be asked.",
        "iap_apple_rate_limit_waits_total":
            "Apple calls the shared gate held back for a later slot (the record waits for it, no attempt spent),"
            + " by endpoint.",
        "iap_apple_configuration_errors_total":
            "Apple refused our request or credentials (401, verifyReceipt 21004, a request-level 4xx): a"
            + " configuration alert (decision D8), by reason.",
        // Consumption answers (grant, decision D34)
        "iap_consumption_answered_total": "CONSUMPTION_REQUEST answers Apple accepted (202).",
        "iap_consumption_skipped_total":
            "CONSUMPTION_REQUESTs not answered on purpose, by reason (no_consent, window_closed, unknown_purchase,"
            + " already_answered, not_apple).",
        "iap_consumption_failed_total":
            "Consumption answers Apple did not accept, by kind (retry: the record is tried again; terminal: refused"
            + " for good).",
        // Confirm (iap-confirm, decision D55)
        "iap_apple_confirmations_total":
            "Calls telling Apple what grant committed, by action (finish_transaction, set_app_account_token) and"
            + " outcome (done; refused: for good, logged; retry: the record is tried again).",
        // Reconcile (iap-reconcile, decision D32)
        "iap_reconcile_pages_total": "Notification history pages reconcile read and published, by app and environment.",
        "iap_reconcile_notifications_published_total":
            "Notifications reconcile republished to the notifications topic from Apple's history, by app and"
            + " environment.",
        "iap_reconcile_subscriptions_swept_total":
            "Subscriptions reconcile asked Apple about (result: published, not_found).",
        "iap_reconcile_runs_total": "Reconcile runs, by outcome (completed, failed).",
        "iap_reconcile_checkpoint_age_seconds":
            "How far behind now the next notification history window starts, after the latest run, by app and"
            + " environment.",
        // Gateway
        "iap_gateway_requests_total": "Notification requests answered, by HTTP status.",
        "iap_gateway_kafka_write_seconds": "Wait for Kafka's acknowledgement of a notification, in seconds.",
        "iap_gateway_unkeyed_notifications_total":
            "Notifications written without a key because their payload did not decode.",
        // Read API (iap-api)
        "iap_api_requests_total": "Read API requests answered, by route and HTTP status.",
        "iap_api_request_seconds": "Time to answer a read API request, in seconds, by route.",
        "iap_catalog_unlisted_products_total":
            "Distinct products customers hold that the product catalog does not list, by app (counted once per"
            + " process).",
        // Process (ProcessMetrics registers these with this text)
        "process_cpu_seconds_total": "Total user and system CPU time spent, in seconds.",
        "process_resident_memory_bytes": "Resident memory size, in bytes.",
        "process_start_time_seconds": "Start time of the process since the Unix epoch, in seconds.",
        "process_open_fds": "Open file descriptors.",
        "process_max_fds": "Maximum number of open file descriptors (the soft limit).",
        "iap_build_info": "Always 1; labels say which build runs (version, revision, swift compiler) in which process.",
        "iap_ready":
            "1 while the process's /readyz answers 200, else 0 (evaluated at scrape); process = iap-<stage>, iap-gateway"
            + " or iap-api.",
    ]

    /// Returns the exposition text with a `# HELP` line added before each `# TYPE` line whose
    /// family has none and is in `catalog`.
    public static func annotate(_ text: [UInt8], catalog: [String: String] = Self.catalog) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.count + 2048)
        var helped: Set<Substring> = []
        let string = String(decoding: text, as: UTF8.self)
        for (index, line) in string.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if index > 0 { output.append(UInt8(ascii: "\n")) }
            if line.hasPrefix("# HELP ") {
                helped.insert(Self.familyName(line.dropFirst(7)))
            } else if line.hasPrefix("# TYPE ") {
                let name = Self.familyName(line.dropFirst(7))
                if !helped.contains(name), let help = catalog[String(name)] {
                    output.append(contentsOf: "# HELP \(name) \(Self.escaped(help))\n".utf8)
                }
            }
            output.append(contentsOf: line.utf8)
        }
        return output
    }

    /// The families in exposition `text` that have a `# TYPE` line but no `# HELP` line.
    public static func familiesWithoutHelp(_ text: String) -> [String] {
        var helped: Set<Substring> = []
        var typed: [Substring] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# HELP ") {
                helped.insert(Self.familyName(line.dropFirst(7)))
            } else if line.hasPrefix("# TYPE ") {
                typed.append(Self.familyName(line.dropFirst(7)))
            }
        }
        return typed.filter { !helped.contains($0) }.map(String.init)
    }

    private static func familyName(_ rest: Substring) -> Substring {
        rest.prefix { $0 != " " }
    }

    /// The text format escapes backslash and line feed in help text.
    private static func escaped(_ help: String) -> String {
        help.replacing("\\", with: "\\\\").replacing("\n", with: "\\n")
    }
}
