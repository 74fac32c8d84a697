import AppStoreModels
import ArgumentParser
import Catalog
import Contracts
import Customers
import Foundation
import Hosting
import Hummingbird
import LocalServices
import Logging
import Pipeline
import ProductCatalog
import ReadAPI
import Redis
import Settings
import WorkerCommon

/// The read API under wrk, side by side with a bare Hummingbird route answering a body of the
/// same size: the share of a customer read that is iap-api's own (auth, Redis, rendering), the
/// rest being what any Hummingbird server on this machine costs. Rounds alternate the two on one
/// machine, since a figure on a shared machine is only a ratio. Build with `-c release`; needs
/// `wrk` (Debian).
struct BenchAPICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "api",
        abstract: "Customer reads per second and p99 of iap-api under wrk, beside a bare Hummingbird route."
    )

    @Option(help: "Customers in Redis (each with a subscription, a non-consumable and a gem pack).")
    var customers = 10_000
    @Option(help: "Rounds; each runs wrk against iap-api, then against the bare route.")
    var rounds = 3
    @Option(help: "Seconds of wrk per run.") var seconds = 10
    @Option(help: "wrk connections.") var connections = 32
    @Option(help: "wrk threads.") var threads = 1
    @Option(help: "The product catalog iap-api renders with.") var catalog = "pipelines/catalog.yaml"
    @Option(
        name: .customLong("redis-pool"), help: "iap-api's Redis connections (REDIS_POOL_SIZE; default: its default).")
    var redisPool: Int?
    @Option(
        name: .customLong("render-cache"),
        help: "iap-api's kept customer answers (IAP_API_RENDER_CACHE_ENTRIES; 0: off; default: its default).")
    var renderCache: Int?
    @Flag(help: "Print JSON.") var json = false

    struct Run: Codable {
        var target: String
        var requestsPerSecond: Double
        var p99Milliseconds: Double
        var non2xx: Int
    }

    func run() async throws {
        let logger = Logger(label: "iap.bench.api", factory: { _ in SwiftLogNoOpLogHandler() })
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("iap-bench-api-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let redis = try await LocalRedisServer.start()
        defer { redis.stop() }
        let sample = try await Self.fill(redis, customers: customers)

        let key = APIKeyring.newKey(name: "bench", apps: "com.example.game")
        try (key.line + "\n").write(toFile: directory + "/keys", atomically: true, encoding: .utf8)
        var environment = [
            ReadAPIKeys.listenHost.name: "127.0.0.1", ReadAPIKeys.listenPort.name: "0",
            HostSettings.opsHost.name: "127.0.0.1", HostSettings.opsPort.name: "0",
            ReadAPIKeys.keysFile.name: directory + "/keys", ProductCatalogKeys.file.name: catalog,
            RedisSettings.url.name: redis.url,
        ]
        // As deployed unless asked: the bench measured a pool of four before session 15.
        if let redisPool { environment[RedisSettings.poolSize.name] = String(redisPool) }
        if let renderCache { environment[ReadAPIKeys.renderCacheEntries.name] = String(renderCache) }
        let settings = try ReadAPISettings(environment: environment)
        let (apiPorts, apiListening) = AsyncStream.makeStream(of: Int.self)
        let api = try ReadAPI(settings: settings, logger: logger, onListening: { apiListening.yield($0) })
        let (barePorts, bareListening) = AsyncStream.makeStream(of: Int.self)
        let bare = Self.bareServer(body: sample, logger: logger, onListening: { bareListening.yield($0) })
        let stop = AsyncStream<Void>.makeStream()
        let servers = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await api.run(until: { for await _ in stop.stream {} }) }
                group.addTask {
                    try await withTaskCancellationHandler {
                        try await bare.runService()
                    } onCancel: {
                    }
                }
                try await group.next()
                group.cancelAll()
            }
        }
        defer {
            stop.continuation.finish()
            servers.cancel()
        }
        var apiIterator = apiPorts.makeAsyncIterator()
        var bareIterator = barePorts.makeAsyncIterator()
        guard let apiPort = await apiIterator.next(), let barePort = await bareIterator.next() else {
            throw ValidationError("a server did not start")
        }
        let script = directory + "/customers.lua"
        try Self.script(customers: customers, key: key.key).write(toFile: script, atomically: true, encoding: .utf8)

        var runs: [Run] = []
        for _ in 0..<rounds {
            for (target, port) in [("iap-api", apiPort), ("bare", barePort)] {
                let run = try await wrk(target: target, url: "http://127.0.0.1:\(port)", script: script)
                runs.append(run)
                if !json {
                    print(
                        "\(target.padding(toLength: 8, withPad: " ", startingAt: 0)) \(Int(run.requestsPerSecond)) req/s, "
                            + "p99 \(String(format: "%.2f", run.p99Milliseconds)) ms, non-2xx \(run.non2xx)")
                }
            }
        }
        func median(_ target: String, _ value: (Run) -> Double) -> Double {
            let values = runs.filter { $0.target == target }.map(value).sorted()
            return values[values.count / 2]
        }
        let summary: [String: Any] = [
            "customers": customers, "connections": connections, "threads": threads, "seconds": seconds,
            "apiRequestsPerSecond": Int(median("iap-api", \.requestsPerSecond)),
            "apiP99Milliseconds": median("iap-api", \.p99Milliseconds),
            "bareRequestsPerSecond": Int(median("bare", \.requestsPerSecond)),
            "bareP99Milliseconds": median("bare", \.p99Milliseconds),
            "ratio": median("iap-api", \.requestsPerSecond) / median("bare", \.requestsPerSecond),
            "bodyBytes": sample.count,
        ]
        if json {
            try CLIInput.printJSONObject(summary)
        } else {
            print(
                "median: iap-api \(summary["apiRequestsPerSecond"]!) req/s (p99 \(summary["apiP99Milliseconds"]!) ms), "
                    + "bare \(summary["bareRequestsPerSecond"]!) req/s (p99 \(summary["bareP99Milliseconds"]!) ms), "
                    + "ratio \(String(format: "%.2f", summary["ratio"] as! Double))")
        }
    }

    /// Saves `customers` records and returns one customer's answer as iap-api renders it, the
    /// body the bare route answers.
    static func fill(_ server: LocalRedisServer, customers: Int) async throws -> [UInt8] {
        let client = RedisClient(configuration: try server.configuration(poolSize: 4))
        defer { Task { await client.shutdown() } }
        let store = RedisCustomerStore(client: client)
        let start = Timestamp(Date()).millisecondsSince1970
        var last = CustomerRecord(bundleId: "com.example.game", userId: "u-0")
        for batch in stride(from: 0, to: customers, by: 500) {
            var records: [CustomerRecord] = []
            for index in batch..<min(batch + 500, customers) {
                var record = CustomerRecord(bundleId: "com.example.game", userId: "u-\(index)")
                for (offset, (product, type)) in [
                    ("vip_monthly", ProductType.autoRenewableSubscription), ("remove_ads", .nonConsumable),
                    ("gems_100", .consumable),
                ].enumerated() {
                    let id = String(3_000_000_000_000 + index * 10 + offset)
                    var event = EntitlementEvent(
                        eventId: "bench-\(id)", action: .grant, userId: record.userId, orderId: nil,
                        bundleId: record.bundleId, productId: product, productType: type, quantity: 1,
                        transactionId: id, originalTransactionId: id, environment: .production,
                        purchaseDate: Timestamp(millisecondsSince1970: start),
                        expiresDate: type == .autoRenewableSubscription
                            ? Timestamp(millisecondsSince1970: start + 30 * 86_400_000) : nil,
                        revocationDate: nil, matchedBy: .user, warnings: [], source: .storeKit2, status: .active,
                        autoRenewStatus: .on)
                    event.sequence = 1
                    _ = record.apply(event)
                }
                records.append(record)
                last = record
            }
            _ = try await store.putIfAbsent(records)
        }
        let catalog = try CatalogFile.load(path: "pipelines/catalog.yaml")
        return try EventEncoder.encode(value: CustomerView(last, catalog: catalog, at: Timestamp(Date())))
    }

    /// The same path, no authentication, no Redis: a fixed body of the API's size.
    static func bareServer(body: [UInt8], logger: Logger, onListening: @escaping @Sendable (Int) async -> Void)
        -> some ApplicationProtocol
    {
        let router = Router()
        router.get("/v1/apps/:bundleId/customers/:userId") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }
        return Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { await onListening($0.localAddress?.port ?? 0) }, logger: logger)
    }

    /// Requests for random customers, each with the key.
    static func script(customers: Int, key: String) -> String {
        """
        math.randomseed(42)
        request = function()
          local path = "/v1/apps/com.example.game/customers/u-" .. math.random(0, \(customers - 1))
          return wrk.format("GET", path, {["Authorization"] = "Bearer \(key)"})
        end
        """
    }

    func wrk(target: String, url: String, script: String) async throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/wrk")
        process.arguments = [
            "-t\(threads)", "-c\(connections)", "-d\(seconds)s", "--latency", "-s", script, url,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { throw ValidationError("wrk is needed (apt-get install wrk): \(error)") }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        func value(after label: String) -> String? {
            output.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }
                .map {
                    $0.trimmingCharacters(in: .whitespaces).dropFirst(label.count).trimmingCharacters(in: .whitespaces)
                }
        }
        guard let rate = value(after: "Requests/sec:").flatMap(Double.init), let p99 = value(after: "99%") else {
            throw ValidationError("wrk's output was not understood:\n\(output)")
        }
        let non2xx = value(after: "Non-2xx or 3xx responses:").flatMap(Int.init) ?? 0
        return Run(target: target, requestsPerSecond: rate, p99Milliseconds: Self.milliseconds(p99), non2xx: non2xx)
    }

    /// wrk's `1.23ms`, `456.00us`, `1.02s` in milliseconds.
    static func milliseconds(_ text: String) -> Double {
        for (unit, factor) in [("us", 0.001), ("ms", 1.0), ("s", 1000.0)] where text.hasSuffix(unit) {
            return (Double(text.dropLast(unit.count)) ?? .nan) * factor
        }
        return .nan
    }
}
