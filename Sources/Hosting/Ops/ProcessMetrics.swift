import Foundation
import Prometheus
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The process metrics every executable with an ops server exports, refreshed at each scrape
/// (`process_*` as the Prometheus client libraries name them; the `/proc` ones on Linux only),
/// plus `iap_build_info` and `iap_ready`. Registered on the process registry with their help
/// text; registering twice on one registry reuses the families.
final class ProcessMetrics: Sendable {
    private let cpu: Counter
    private let residentMemory: Gauge
    private let startTime: Gauge
    private let openFDs: Gauge
    private let maxFDs: Gauge
    private let ready: Gauge
    private let reportedCPU = Mutex<Double>(0)

    init(registry: PrometheusCollectorRegistry, process: String) {
        func help(_ name: String) -> String { MetricHelp.catalog[name] ?? "" }
        cpu = registry.makeCounter(name: "process_cpu_seconds_total", help: help("process_cpu_seconds_total"))
        residentMemory = registry.makeGauge(
            name: "process_resident_memory_bytes", help: help("process_resident_memory_bytes"))
        startTime = registry.makeGauge(name: "process_start_time_seconds", help: help("process_start_time_seconds"))
        openFDs = registry.makeGauge(name: "process_open_fds", help: help("process_open_fds"))
        maxFDs = registry.makeGauge(name: "process_max_fds", help: help("process_max_fds"))
        ready = registry.makeGauge(name: "iap_ready", labels: [("process", process)], help: help("iap_ready"))
        registry.makeGauge(
            name: "iap_build_info",
            labels: [
                ("version", BuildInfo.version), ("revision", BuildInfo.revision), ("swift", BuildInfo.swift),
                ("process", process),
            ],
            help: help("iap_build_info")
        ).set(1.0)
        startTime.set(Self.processStartTime())
    }

    /// Reads the process's figures now and records `readiness`.
    func update(readiness: Readiness) {
        ready.set(readiness == .ready ? 1.0 : 0.0)
        #if os(Linux)
        if let stat = Self.procStat() {
            let seconds = stat.cpuSeconds
            let delta = reportedCPU.withLock { reported in
                let delta = seconds - reported
                if delta > 0 { reported = seconds }
                return delta
            }
            if delta > 0 { cpu.increment(by: delta) }
            residentMemory.set(stat.residentBytes)
        }
        if let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            openFDs.set(Double(fds.count))
        }
        if let limit = Self.openFileLimit() { maxFDs.set(limit) }
        #endif
    }

    // MARK: - /proc

    /// The figures of `/proc/self/stat` the metrics need.
    struct Stat {
        var cpuSeconds: Double
        var residentBytes: Double
        /// Clock ticks after boot.
        var startTicks: Double
    }

    private static let launch = Date().timeIntervalSince1970

    /// The kernel's start time of the process (boot time + start ticks); the first use of this
    /// type elsewhere.
    static func processStartTime() -> Double {
        #if os(Linux)
        if let stat = procStat(), let boot = bootTime() {
            return boot + stat.startTicks / clockTicks
        }
        #endif
        return launch
    }

    #if os(Linux)
    private static let clockTicks = Double(sysconf(Int32(_SC_CLK_TCK)))
    private static let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))

    /// Parses `/proc/self/stat`: the fields after the command name (which may hold spaces),
    /// so field 3 (state) is index 0.
    static func procStat() -> Stat? {
        guard let text = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 21, let user = Double(fields[11]), let system = Double(fields[12]),
            let start = Double(fields[19]), let rss = Double(fields[21])
        else { return nil }
        return Stat(
            cpuSeconds: (user + system) / clockTicks, residentBytes: rss * pageSize, startTicks: start)
    }

    /// `btime` of `/proc/stat`: boot time, seconds since the epoch.
    static func bootTime() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// The soft "Max open files" of `/proc/self/limits`.
    static func openFileLimit() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/self/limits", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("Max open files") {
            let values = line.dropFirst("Max open files".count).split(separator: " ")
            return values.first.flatMap { Double($0) }
        }
        return nil
    }
    #endif
}
