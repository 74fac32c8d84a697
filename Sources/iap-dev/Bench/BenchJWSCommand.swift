import AppStore
import AppStoreModels
import ArgumentParser
import Basics
import Foundation
import Hosting

/// Full JWS verifications per second (parse, cached chain, ES256, decode, identity checks) over
/// a directory of vectors, on one task and on one task per core. Build with `-c release`.
struct BenchJWSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jws",
        abstract: "Verifications per second over JWS vectors, single core and all cores."
    )

    @Option(help: "Directory of .jws files (verified at their signed date against Apple Root CA - G3).")
    var directory = "Tests/AppStoreTests/Vectors/jws"
    @Option(help: "Seconds per measurement.")
    var seconds: Double = 3
    @Option(help: "Concurrent tasks for the all-cores run (default: active processor count).")
    var concurrency: Int?
    @Flag(help: "Print JSON.")
    var json = false

    /// One vector with a verifier configured from its own (unverified) payload.
    struct Workload: Sendable {
        var jws: String
        var kind: SignedPayloadKind
        var verifier: SignedDataVerifier

        func verify() async -> Bool {
            switch self.kind {
            case .notification: await self.verifier.verifyAndDecodeNotification(self.jws).payload != nil
            case .renewal: await self.verifier.verifyAndDecodeRenewalInfo(self.jws).payload != nil
            case .appTransaction: await self.verifier.verifyAndDecodeAppTransaction(self.jws).payload != nil
            case .transaction: await self.verifier.verifyAndDecodeTransaction(self.jws).payload != nil
            case .realtimeRequest: await self.verifier.verifyAndDecodeRealtimeRequest(self.jws).payload != nil
            }
        }
    }

    func run() async throws {
        let workloads = try self.loadWorkloads()
        for workload in workloads where await !workload.verify() {
            throw ValidationError("a vector does not verify; refusing to benchmark failures")
        }
        let cores = self.concurrency ?? ProcessInfo.processInfo.activeProcessorCount
        let single = await Self.measure(workloads, tasks: 1, seconds: self.seconds)
        let all = await Self.measure(workloads, tasks: cores, seconds: self.seconds)
        if self.json {
            try CLIInput.printJSONObject([
                "vectors": workloads.count, "singleCorePerSecond": Int(single), "allCoresPerSecond": Int(all),
                "tasks": cores,
            ])
        } else {
            print("vectors: \(workloads.count)")
            print("single core: \(Int(single)) verifications/s")
            print("all cores (\(cores) tasks): \(Int(all)) verifications/s")
        }
    }

    private func loadWorkloads() throws -> [Workload] {
        let files = try FileManager.default.contentsOfDirectory(atPath: self.directory).filter { $0.hasSuffix(".jws") }
            .sorted()
        guard !files.isEmpty else { throw ValidationError("no .jws files in \(self.directory)") }
        return try files.map { name in
            let jws = try CLIInput.read(file: "\(self.directory)/\(name)")
            let unverified = try UnverifiedJWS(jws)
            let object =
                (try? JSONSerialization.jsonObject(with: Data(unverified.payloadJSON))) as? [String: Any] ?? [:]
            let identity = (object["data"] as? [String: Any]) ?? object
            let environment = (identity["environment"] as? String) ?? (identity["receiptType"] as? String) ?? "Sandbox"
            let verifier = try SignedDataVerifier(
                .init(
                    bundleId: identity["bundleId"] as? String ?? "unused",
                    appAppleId: (identity["appAppleId"] as? NSNumber)?.int64Value ?? 0,
                    environment: AppStoreEnvironment(rawValue: environment)
                ))
            return Workload(jws: jws, kind: SignedPayloadKind(detecting: jws), verifier: verifier)
        }
    }

    /// Runs `tasks` loops for `seconds` and returns completed verifications per second.
    private static func measure(_ workloads: [Workload], tasks: Int, seconds: Double) async -> Double {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(Int64(seconds * 1000)))
        let start = clock.now
        let total = await withTaskGroup(of: Int.self) { group in
            for offset in 0..<tasks {
                group.addTask {
                    var count = 0
                    var index = offset
                    while clock.now < deadline {
                        for _ in 0..<32 {
                            _ = await workloads[index % workloads.count].verify()
                            index += 1
                        }
                        count += 32
                    }
                    return count
                }
            }
            return await group.reduce(0, +)
        }
        let elapsed = start.duration(to: clock.now)
        let elapsedSeconds = elapsed.seconds
        return Double(total) / elapsedSeconds
    }
}
