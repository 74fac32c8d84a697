import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process whose exit is seen by a thread of its own blocked in `waitpid`, for
/// ``LocalRedisServer``.
///
/// Foundation's `Process` learns of an exit from its own monitoring, which under a loaded
/// parallel test run was seen to miss one: `stop()` then held a Swift executor thread for its
/// whole 10 s bound (with two cores, half the cooperative pool), and unrelated tests with time
/// bounds failed. A blocking `waitpid` on the child's pid cannot miss it.
final class ServerProcess: Sendable {
    let pid: pid_t
    private let state = ExitBox()

    private final class ExitBox: Sendable {
        let exited = Atomic<Bool>(false)
        let signal = DispatchSemaphore(value: 0)
    }

    /// Starts `executable` with `arguments`, stdin, stdout and stderr on `/dev/null`, default
    /// signal dispositions and an empty signal mask.
    init(executable: String, arguments: [String]) throws {
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
        for descriptor in Int32(0)...2 {
            posix_spawn_file_actions_addopen(
                &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var spawned: pid_t = 0
        let result = posix_spawn(&spawned, executable, &actions, &attributes, argv, environ)
        guard result == 0 else {
            throw LocalRedisServerError(message: "could not start \(executable): \(String(cString: strerror(result)))")
        }
        pid = spawned
        let pid = spawned
        let thread = Thread { [state] in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            state.exited.store(true, ordering: .releasing)
            state.signal.signal()
        }
        thread.name = "wait-redis"
        thread.start()
    }

    var isRunning: Bool { !state.exited.load(ordering: .acquiring) }

    /// SIGKILL if still running.
    func kill() {
        if isRunning { _ = Glibc.kill(pid, SIGKILL) }
    }

    /// Waits until the child has exited (at most `timeout`); true once it has.
    func waitForExit(timeout: DispatchTimeInterval) -> Bool {
        guard state.signal.wait(timeout: .now() + timeout) == .success else { return false }
        state.signal.signal()  // a later wait returns at once too
        return true
    }
}
