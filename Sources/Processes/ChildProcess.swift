import Basics
public import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process that receives SIGTERM and SIGINT the way a deployed process does, and whose
/// exit is never missed.
///
/// Foundation's `Process` spawns with the calling thread's signal mask and ignored signals, and
/// a Swift program that traps SIGTERM (swift-service-lifecycle does) ignores it and runs its
/// tasks on threads that block it, so such children never see SIGTERM. Its exit monitoring was
/// also seen to miss an exit under a loaded parallel test run, and a caller waiting for it held
/// a cooperative thread for its whole bound. This spawns with `posix_spawn` (SIGTERM, SIGINT,
/// SIGHUP and SIGPIPE reset to their defaults, an empty mask) and one thread per child blocks
/// in `wait4`, so the status is never lost and the child never lingers as a zombie.
public final class ChildProcess: Sendable {
    /// Where the child's stdout and stderr go. Never a pipe: a chatty child could block on it.
    public enum Output: Sendable {
        /// Appended to a log file (created if missing).
        case file(String)
        /// Standard output and standard error each to a file of its own (created or emptied): a
        /// tool whose output is data (JSON) and whose warnings must not spoil it.
        case files(output: String, errors: String)
        case discard
    }

    public let name: String
    public let pid: Int32
    /// The log file, when the output goes to one.
    public let logPath: String?
    private let exit = ExitBox()

    private struct ExitState {
        var status: Int32?
        /// User and system CPU seconds of the child and of the children it waited for.
        var cpuSeconds: Double?
        var waiters: [CheckedContinuation<Int32, Never>] = []
    }

    /// Shared with the thread that waits for the child (a `Mutex` itself cannot be captured).
    private final class ExitBox: Sendable {
        let state = Mutex(ExitState())
        /// Signalled once at the exit, for callers that cannot suspend (``waitForExit(timeout:)``).
        let exited = DispatchSemaphore(value: 0)
    }

    /// Starts `executable` with `arguments` and exactly `environment` (this process's own when nil).
    public init(
        name: String, executable: String, arguments: [String] = [], environment: [String: String]? = nil,
        output: Output
    ) throws(SpawnError) {
        self.name = name
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        switch output {
        case .file(let path):
            self.logPath = path
            posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        case .files(let output, let errors):
            self.logPath = errors
            posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        case .discard:
            self.logPath = nil
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        #if canImport(Glibc)
        // Nothing else of ours: an inherited descriptor keeps the parent's sockets open for as
        // long as the child lives. A long-lived redis-server holding a copy of a mock Kafka
        // broker's listening socket kept its port bound, so the broker could not listen again
        // after `setBrokerUp` ("Address already in use", then an assertion in librdkafka).
        // glibc 2.34+; the Glibc module does not export it, so it is looked up (none: inherit).
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        }
        #endif

        let variables = environment ?? ProcessInfo.processInfo.environment
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for argument in argv { free(argument) }
            for variable in envp { free(variable) }
        }
        var spawned: pid_t = 0
        let result = posix_spawn(&spawned, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw SpawnError("could not start \(name) (\(executable)): \(String(cString: strerror(result)))")
        }
        self.pid = spawned
        let pid = spawned
        let threadName = "wait-\(name)"
        let thread = Thread { [exit] in
            nameCurrentThread(threadName)
            var status: Int32 = 0
            var usage = rusage()
            while wait4(pid, &status, 0, &usage) == -1 && errno == EINTR {}
            let waiters = exit.state.withLock { state in
                state.status = status
                state.cpuSeconds = usage.cpuSeconds
                defer { state.waiters = [] }
                return state.waiters
            }
            exit.exited.signal()
            for waiter in waiters { waiter.resume(returning: status) }
        }
        thread.start()
    }

    public var isRunning: Bool { exit.state.withLock { $0.status == nil } }

    /// The exit code once the process exited normally; nil while it runs or when a signal
    /// ended it.
    public var exitCode: Int32? {
        exit.state.withLock { state in
            guard let status = state.status, status & 0x7f == 0 else { return nil }
            return (status >> 8) & 0xff
        }
    }

    /// The CPU seconds (user and system) the process used, counting the children it waited for,
    /// once it has exited: exact, where sampling `/proc` while it runs misses its last moments.
    public var cpuSeconds: Double? { exit.state.withLock { $0.cpuSeconds } }

    /// Sends a signal if the process is still running.
    public func signal(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// SIGKILL: a crash, with no drain and no commit.
    public func crash() { signal(SIGKILL) }

    /// The raw `waitpid` status once the process has exited.
    public func waitForExit() async -> Int32 {
        await withCheckedContinuation { continuation in
            let status = exit.state.withLock { state -> Int32? in
                if let status = state.status { return status }
                state.waiters.append(continuation)
                return nil
            }
            if let status { continuation.resume(returning: status) }
        }
    }

    /// Blocks the calling thread until the child has exited, at most `timeout`; true once it has.
    /// For callers that cannot suspend (a `deinit`); the wait is milliseconds after a SIGKILL.
    public func waitForExit(timeout: DispatchTimeInterval) -> Bool {
        guard exit.exited.wait(timeout: .now() + timeout) == .success else { return false }
        exit.exited.signal()  // a later wait returns at once too
        return true
    }

    /// SIGTERM, then SIGKILL if the process has not exited within `grace`.
    public func stop(grace: Duration) async {
        guard isRunning else { return }
        signal(SIGTERM)
        let deadline = ContinuousClock.now + grace
        while isRunning && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if isRunning {
            signal(SIGKILL)
            _ = await waitForExit()
        }
    }

    /// The last `bytes` of the child's log, for error messages.
    public func logTail(bytes: Int = 4_000) -> String {
        guard let logPath, let data = FileManager.default.contents(atPath: logPath) else { return "" }
        return String(decoding: data.suffix(bytes), as: UTF8.self)
    }
}

/// A child process could not be started, or a command did not finish in time.
public struct SpawnError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
