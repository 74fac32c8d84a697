import Foundation
import Processes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// CPU time of processes, from Linux's `/proc/<pid>/stat` (`utime` + `stime`): what benchmarks
/// divide by the purchases of a run, so builds compare on CPU per purchase and not only on wall
/// clock (issue 23). Nil where `/proc` does not exist or the process is gone.
public enum ProcessCPU {
    /// What `/proc/<pid>/stat` says of a process: its parent and the CPU it has used so far.
    public struct Stat: Sendable {
        public var parent: Int32
        /// Seconds of CPU, user and system.
        public var seconds: Double
    }

    /// The process's stat line, read once; nil when it is gone.
    public static func stat(pid: Int32) -> Stat? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After the command name in parentheses: state is field 3, ppid 4, utime 14 and stime 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let parent = Int32(fields[1]), let user = Double(fields[11]),
            let system = Double(fields[12])
        else { return nil }
        return Stat(parent: parent, seconds: (user + system) / Double(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// Seconds of CPU (user and system) the process has used so far.
    public static func seconds(pid: Int32) -> Double? { stat(pid: pid)?.seconds }

    /// This process's CPU seconds so far (`getrusage`, user and system).
    public static func ownSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return usage.cpuSeconds
    }
}
