import Foundation
import Hosting
import Processes
import Testing
import Yams

/// The alert rules of deploy/prometheus/rules and deploy/kubernetes: valid for promtool, proven
/// by their unit tests, the same in both places, each with a runbook, over metrics that exist.
@Suite(.timeLimit(.minutes(2))) struct AlertRulesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let rulesFile = root.appendingPathComponent("deploy/prometheus/rules/iap-alerts.yml")
    static let rulesTestFile = root.appendingPathComponent("deploy/prometheus/rules/iap-alerts.test.yml")
    static let prometheusRule = root.appendingPathComponent("deploy/kubernetes/base/prometheus-rule.yaml")
    static let operations = root.appendingPathComponent("docs/operations.md")

    @Test func promtoolAcceptsTheRulesFile() async throws {
        try await Self.promtool(["check", "rules", Self.rulesFile.path])
    }

    /// deploy/prometheus/prometheus.yml (compose's Prometheus) loads the rules file.
    @Test func composesPrometheusLoadsTheRules() async throws {
        let config = Self.root.appendingPathComponent("deploy/prometheus/prometheus.yml")
        #expect(try String(contentsOf: config, encoding: .utf8).contains("  - rules/iap-alerts.yml"))
        try await Self.promtool(["check", "config", config.path])
    }

    @Test func promtoolAcceptsThePrometheusRulesGroups() async throws {
        let spec = try #require(try Self.yaml(Self.prometheusRule)["spec"] as? [String: Any])
        let groups = try #require(spec["groups"])
        let extracted = FileManager.default.temporaryDirectory
            .appendingPathComponent("iap-prometheus-rule-\(UUID().uuidString).yml")
        try Yams.dump(object: ["groups": groups]).write(to: extracted, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: extracted) }
        try await Self.promtool(["check", "rules", extracted.path])
    }

    /// iap-alerts.test.yml: every alert fires on the series it should and not on the others.
    @Test func everyAlertPassesItsPromtoolUnitTests() async throws {
        try await Self.promtool(["test", "rules", Self.rulesTestFile.path])
    }

    @Test func thePrometheusRuleHoldsExactlyTheRulesFilesGroups() throws {
        let file = try #require(try Yams.compose(yaml: String(contentsOf: Self.rulesFile, encoding: .utf8)))
        let rule = try #require(try Yams.compose(yaml: String(contentsOf: Self.prometheusRule, encoding: .utf8)))
        #expect(rule["kind"]?.string == "PrometheusRule")
        let fileGroups = try #require(file["groups"])
        let ruleGroups = try #require(rule["spec"]?["groups"])
        #expect(
            fileGroups == ruleGroups,
            "deploy/kubernetes/base/prometheus-rule.yaml spec.groups differs from deploy/prometheus/rules/iap-alerts.yml"
        )
    }

    @Test func everyAlertHasARunbookSectionInOperationsMd() throws {
        let anchors = Set(
            try String(contentsOf: Self.operations, encoding: .utf8).split(separator: "\n")
                .filter { $0.hasPrefix("#") }
                .map { Self.anchor(String($0.drop { $0 == "#" })) }
        )
        let rules = try Self.alertRules()
        #expect(rules.count >= 7)
        for rule in rules {
            let name = try #require(rule["alert"] as? String)
            let annotations = try #require(rule["annotations"] as? [String: Any], "\(name) has no annotations")
            let url = try #require(annotations["runbook_url"] as? String, "\(name) has no runbook_url")
            #expect(url == "docs/operations.md#\(name.lowercased())", "\(name): \(url)")
            #expect(anchors.contains(name.lowercased()), "docs/operations.md has no section \(name)")
            #expect(annotations["summary"] != nil && annotations["description"] != nil, "\(name)")
            #expect(rule["labels"].flatMap { ($0 as? [String: Any])?["severity"] } != nil, "\(name) has no severity")
        }
    }

    /// Every metric a rule reads is one a process exports (a family of `MetricHelp.catalog`, or
    /// its histogram series), so a renamed metric cannot silently mute an alert.
    @Test func theRulesReadOnlyMetricsTheProcessesExport() throws {
        for rule in try Self.alertRules() {
            let expression = try #require(rule["expr"] as? String)
            #expect(expression.contains(/\b(?:iap|kafka|process)_[a-z_]+\b/), "\(rule["alert"] ?? "?") reads a metric")
            #expect(
                DashboardTests.unexported([expression]) == [],
                "\(rule["alert"] ?? "?") reads metrics nothing exports")
        }
    }

    // MARK: - Helpers

    static func yaml(_ url: URL) throws -> [String: Any] {
        try #require(try Yams.load(yaml: String(contentsOf: url, encoding: .utf8)) as? [String: Any])
    }

    static func alertRules() throws -> [[String: Any]] {
        let groups = try #require(try yaml(rulesFile)["groups"] as? [[String: Any]])
        return groups.flatMap { ($0["rules"] as? [[String: Any]]) ?? [] }.filter { $0["alert"] != nil }
    }

    /// GitHub's heading anchor: lowercased, punctuation other than `-` and `_` dropped, spaces
    /// to `-`.
    static func anchor(_ heading: String) -> String {
        String(
            heading.trimmingCharacters(in: .whitespaces).lowercased()
                .filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == " " }
                .map { $0 == " " ? "-" : $0 })
    }

    /// Runs promtool and fails the test with its output unless it exits 0.
    static func promtool(_ arguments: [String]) async throws {
        guard (try? ChildProcess.locate("promtool")) != nil else {
            Issue.record("promtool is not on PATH: `make setup` installs it (Debian's prometheus package)")
            return
        }
        let completion = try await ChildProcess.run("promtool", arguments)
        #expect(
            completion.exitCode == 0,
            "promtool \(arguments.joined(separator: " ")) exited \(completion.exitCode.map(String.init) ?? "on a signal"):\n\(completion.output)"
        )
    }
}
