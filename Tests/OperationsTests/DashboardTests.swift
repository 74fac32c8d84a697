import Foundation
import Hosting
import Testing

/// The Apple API dashboard Grafana provisions from deploy/grafana/dashboards.
@Suite struct DashboardTests {
    static let dashboard = AlertRulesTests.root.appendingPathComponent("deploy/grafana/dashboards/iap-apple.json")

    @Test func theAppleDashboardShowsLatencyQuantilesAndStatusRatesOverExportedMetrics() throws {
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: Self.dashboard)) as? [String: Any])
        #expect(json["uid"] as? String == "iap-apple")
        let panels = try #require(json["panels"] as? [[String: Any]])
        let expressions = panels.flatMap { ($0["targets"] as? [[String: Any]]) ?? [] }.compactMap {
            $0["expr"] as? String
        }
        for quantile in ["0.5", "0.95", "0.99"] {
            #expect(
                expressions.contains {
                    $0.contains("histogram_quantile(\(quantile),")
                        && $0.contains("iap_apple_request_duration_seconds_bucket")
                }, "p\(quantile) panel")
        }
        #expect(expressions.contains { $0.contains("sum by (endpoint, status)") })
        #expect(Self.unexported(expressions) == [], "the dashboard reads metrics nothing exports")
        let ids = panels.compactMap { $0["id"] as? Int }
        #expect(Set(ids).count == ids.count, "panel ids are unique")
    }

    /// Every dashboard Grafana provisions reads only metrics a process exports, so a renamed
    /// metric cannot leave a panel silently empty.
    @Test func everyDashboardReadsOnlyExportedMetrics() throws {
        let directory = AlertRulesTests.root.appendingPathComponent("deploy/grafana/dashboards")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        #expect(files.count >= 2)
        for file in files {
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent(file)))
                    as? [String: Any])
            let panels = try #require(json["panels"] as? [[String: Any]])
            let expressions = panels.flatMap { ($0["targets"] as? [[String: Any]]) ?? [] }.compactMap {
                $0["expr"] as? String
            }
            #expect(!expressions.isEmpty, "\(file) has queries")
            #expect(Self.unexported(expressions) == [], "\(file) reads metrics nothing exports")
        }
    }

    /// promtool parses every panel's PromQL (as recording rules, Grafana's variables filled in).
    @Test func everyPanelQueryIsValidPromQL() async throws {
        var rules = "groups:\n  - name: dashboard\n    rules:\n"
        var count = 0
        for (_, json) in try Self.dashboards() {
            for expression in Self.expressions(json) {
                let filled = expression.replacing("$__rate_interval", with: "5m").replacing("$endpoint", with: ".*")
                    .replacing("$consumergroup", with: ".*")
                rules +=
                    "      - record: dashboard:query\(count)\n        expr: '\(filled.replacing("'", with: "''"))'\n"
                count += 1
            }
        }
        #expect(count > 10)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "iap-dashboard-\(UUID().uuidString).yml")
        try rules.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        try await AlertRulesTests.promtool(["check", "rules", file.path])
    }

    /// The dashboards work under any scrape configuration (compose's jobs, a PodMonitor's,
    /// annotation-based discovery) and any Prometheus datasource: no query names a `job`, and
    /// every panel reads the datasource the `datasource` variable picks.
    @Test func noQueryDependsOnAJobNameOrADatasourceUid() throws {
        for (file, json) in try Self.dashboards() {
            let variables = (json["templating"] as? [String: Any])?["list"] as? [[String: Any]] ?? []
            #expect(
                variables.contains { $0["name"] as? String == "datasource" && $0["type"] as? String == "datasource" })
            let queries =
                Self.expressions(json)
                + variables.compactMap { ($0["query"] as? [String: Any])?["query"] as? String }
            for query in queries {
                #expect(query.firstMatch(of: /\bjob\s*(=|!=|=~|!~)/) == nil, "\(file): \(query) depends on a job name")
            }
            let text = String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self)
            for match in text.matches(of: /"uid":"([^"]*)"/) where match.output.1 != "${datasource}" {
                #expect(
                    match.output.1 == json["uid"] as? String ?? "",
                    "\(file): a datasource uid \(match.output.1) instead of ${datasource}")
            }
        }
    }

    /// Every dashboard under deploy/grafana/dashboards, by file name.
    static func dashboards() throws -> [(String, [String: Any])] {
        let directory = AlertRulesTests.root.appendingPathComponent("deploy/grafana/dashboards")
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
            .sorted().map { file in
                (
                    file,
                    try #require(
                        try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent(file)))
                            as? [String: Any])
                )
            }
    }

    static func expressions(_ json: [String: Any]) -> [String] {
        let panels = json["panels"] as? [[String: Any]] ?? []
        return panels.flatMap { ($0["targets"] as? [[String: Any]]) ?? [] }.compactMap { $0["expr"] as? String }
    }

    /// The metric names in `expressions` that no process exports (a family of
    /// `MetricHelp.catalog`, or a histogram's `_bucket`/`_count`/`_sum` series of one).
    static func unexported(_ expressions: [String]) -> [String] {
        let families = Set(MetricHelp.catalog.keys)
        return expressions.flatMap { $0.matches(of: /\b(?:iap|kafka|process)_[a-z_]+\b/) }.map { String($0.output) }
            .filter { name in
                let family =
                    ["_bucket", "_count", "_sum"].first { name.hasSuffix($0) && !families.contains(name) }
                    .map { String(name.dropLast($0.count)) } ?? name
                return !families.contains(family)
            }
    }
}
