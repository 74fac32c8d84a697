import Foundation
import Hosting
public import Logging
public import Processes
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the stack runs its workers, reconcile and gateway.
public enum MemberMode: Sendable {
    /// Child processes of the built executables, over TCP as a deployment runs them: what
    /// `iap-dev dev up`, the demo, the soak and the tests whose subject is the process (kill -9,
    /// SIGTERM drains, a worker exiting 75 after Redis lost its state) use.
    case processes
    /// The same assemblies (`WorkerMain.run`, `ReconcileProcess`, `Gateway`) as tasks of this
    /// process, each with its own settings dictionary, ops port, clients and metrics registry:
    /// no executable to build or spawn, so scenario tests run in the fast tier (decision D47).
    case inProcess
}

/// One running worker, reconcile or gateway of a ``LocalStack``, whichever ``MemberMode`` runs it.
protocol StackMember: Sendable {
    var isRunning: Bool { get }
    /// Stops without a drain and returns once it is gone: SIGKILL for a process; cancellation
    /// for an in-process member (its services stop without draining and its listeners close a
    /// moment later, but what a real SIGKILL leaves behind is the process mode's subject).
    func kill() async
    /// A graceful stop (SIGTERM for a process), forced after `grace`.
    func stop(grace: Duration) async
    func logTail(bytes: Int) -> String
}

extension ChildProcess: StackMember {
    func kill() async {
        crash()
        _ = await waitForExit()
    }
}

/// A member run as a task of this process until ``stop(grace:)`` triggers its graceful
/// shutdown. Its log lines (JSON, one per line) go to the file a child process's would.
final class InProcessMember: StackMember {
    private let logPath: String
    /// Finishing it is the member's shutdown trigger (`ProcessHost.Stop.trigger`).
    private let stopping: AsyncStream<Void>.Continuation
    private let task: Task<Void, Never>
    /// Set by the member's task once its run returned or threw (the error is in its log).
    private let ended: Ended

    /// Shared with the member's task, which sets it.
    private final class Ended: Sendable {
        let value = Mutex(false)
    }

    /// Starts `body` in a task; `body` receives a logger writing to `logPath` and the trigger
    /// that stops it.
    init(
        name: String, logPath: String, level: Logger.Level,
        _ body: @escaping @Sendable (Logger, ProcessHost.Stop) async throws -> Void
    ) throws {
        let file = try LogFile(path: logPath)
        var logger = Logger(label: name) { label in
            JSONLogHandler(label: label, metadataProvider: nil) { line in file.append(line) }
        }
        logger.logLevel = level
        let (signal, stopping) = AsyncStream.makeStream(of: Void.self)
        let ended = Ended()
        self.logPath = logPath
        self.stopping = stopping
        self.ended = ended
        self.task = Task {
            let stop = ProcessHost.Stop.trigger {
                for await _ in signal {}
            }
            do {
                try await body(logger, stop)
            } catch {
                logger.error("\(name) ended: \(error)")
            }
            ended.value.withLock { $0 = true }
        }
    }

    var isRunning: Bool { !ended.value.withLock { $0 } }

    func kill() async {
        task.cancel()
        await task.value
    }

    /// The member's own shutdown grace (its settings) bounds the drain; `grace` is when the
    /// stack stops waiting and cancels it.
    func stop(grace: Duration) async {
        stopping.finish()
        let deadline = ContinuousClock.now + grace
        while isRunning && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if isRunning { task.cancel() }
        await task.value
    }

    func logTail(bytes: Int) -> String {
        guard let data = FileManager.default.contents(atPath: logPath) else { return "" }
        return String(decoding: data.suffix(bytes), as: UTF8.self)
    }
}

/// The log file of an in-process member. Loggers copied into the member's clients may log after
/// its task ended (a late close, a background flush): appends never fail, and the descriptor is
/// closed when the last logger holding it is gone.
private final class LogFile: Sendable {
    private let descriptor: Int32

    init(path: String) throws {
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw LocalStackError("cannot open \(path): errno \(errno)") }
    }

    /// One `write(2)` per line on an `O_APPEND` descriptor: concurrent lines do not interleave.
    func append(_ line: String) {
        var line = line
        line.withUTF8 { bytes in _ = write(descriptor, bytes.baseAddress, bytes.count) }
    }

    deinit { close(descriptor) }
}
