import Foundation
import Processes
import Testing

/// The README's first lag command on the README's first stack: `iap-dev dev up`, then `iap lag` with
/// no flags, from the repository root. The embedded broker cannot list consumer groups, so
/// `iap lag` shows the pipeline file's groups instead and says so (decision D39).
@Suite(.timeLimit(.minutes(3)))
struct DevStackLagEndToEndTests {
    @Test func iapLagWithNoFlagsShowsThePipelinesGroupsOnTheDevStack() async throws {
        let binaries = ProcessInfo.processInfo.environment["IAP_BIN_DIR"] ?? DeploymentFiles.path(".build/debug")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "iap-dev-lag-\(UUID().uuidString.prefix(6))"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let redis = try ChildProcess.locate("redis-server")
        let dev = try ChildProcess(
            name: "iap-dev-up", executable: binaries + "/iap-dev",
            arguments: [
                "dev", "up", "--json", "--workers", "none", "--pipeline", DeploymentFiles.path("pipelines/iap.yaml"),
            ],
            environment: ["PATH": URL(fileURLWithPath: redis).deletingLastPathComponent().path + ":/usr/bin:/bin"],
            output: .file(directory + "/dev-up.log"))
        defer { Task { await dev.stop(grace: .seconds(10)) } }
        let ready = try await eventuallyReady(dev, log: directory + "/dev-up.log")
        let kafka = try #require(ready["kafka"] as? String)

        // From the repository root, as the README runs it: only KAFKA_BROKERS, no flags.
        let (code, output) = try await Tools.run(
            "sh", ["-c", #"cd "$0" && exec "$1" lag"#, DeploymentFiles.root, binaries + "/iap"],
            environment: ["PATH": "/usr/bin:/bin", "KAFKA_BROKERS": kafka], timeout: .seconds(90))
        #expect(code == 0, "iap lag failed:\n\(output)")
        #expect(output.contains("showing the groups of pipelines/iap.yaml instead"), "\(output)")
        for group in ["iap-intake", "iap-verify", "iap-match", "iap-grant", "iap-state", "iap-confirm"] {
            #expect(output.contains("\n" + group + " "), "\(group) is not in:\n\(output)")
        }
        #expect(output.contains("total lag: "))
        await dev.stop(grace: .seconds(10))
    }

    /// The ready line of `iap-dev dev up --json`.
    private func eventuallyReady(_ dev: ChildProcess, log: String) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(90)
        while ContinuousClock.now < deadline {
            guard dev.isRunning else { throw DeploymentError("iap-dev dev up exited:\n\(dev.logTail())") }
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") where line.hasPrefix("{\"") {
                if let ready = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    ready["kafka"] != nil
                {
                    return ready
                }
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw DeploymentError("iap-dev dev up printed no ready line within 90 s:\n\(dev.logTail())")
    }
}
