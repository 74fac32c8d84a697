#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Names the calling thread, so `top -H`, `perf` and `/proc/<pid>/task/*/comm` tell the
/// process's own threads apart.
///
/// It must run on the thread itself: Foundation's `Thread.name`, set before `start()`, never
/// reaches the OS thread on Linux, which then keeps the name of the thread that spawned it
/// (a cooperative-pool "com.apple.root.default-qos", cut to "oot.default-qos"). Linux keeps at
/// most 15 bytes. Glibc's `pthread_setname_np` is not visible to Swift (it needs `_GNU_SOURCE`),
/// so on Linux the name is written where that function writes it, the thread's `comm` file.
public func nameCurrentThread(_ name: String) {
    let bytes = Array(name.utf8.prefix(15))
    #if os(Linux)
    let fd = open("/proc/thread-self/comm", O_WRONLY)
    guard fd >= 0 else { return }
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    #elseif canImport(Darwin)
    _ = (bytes + [0]).withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { pthread_setname_np($0.baseAddress!) }
    }
    #endif
}
