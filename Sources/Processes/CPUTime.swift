#if canImport(Glibc)
public import Glibc
#elseif canImport(Darwin)
public import Darwin
#endif

extension rusage {
    /// User and system CPU, in seconds: what `getrusage` and `wait4` report for a process.
    public var cpuSeconds: Double {
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(ru_utime) + seconds(ru_stime)
    }
}
