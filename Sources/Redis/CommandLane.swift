import Basics
import DequeModule
import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One hiredis connection and the thread that drives it, shared by every caller.
///
/// Callers queue requests; the thread takes everything queued since its last round trip and
/// sends it as one pipeline (one `write`, then the replies in order). Under load a worker's
/// hundreds of concurrent records therefore cost Redis a few round trips, not one each, and
/// cost the process one thread wake-up per batch instead of one per command. With nothing
/// queued the thread sleeps; a lone command goes out at once, so pipelining adds no delay.
///
/// `@unchecked Sendable` invariant: `connection` is touched only by the lane's own thread;
/// everything else lives behind `state`.
final class CommandLane: @unchecked Sendable {
    /// What a caller asked for; its replies come back as one array.
    enum Request: Sendable {
        case command(EncodedCommand)
        case pipeline([EncodedCommand])

        var commandCount: Int {
            if case .pipeline(let commands) = self { return commands.count }
            return 1
        }
    }

    private struct Job {
        var id: UInt64
        var request: Request
        /// Unsafe (no checking canary: one allocation less per command): a job is resumed by
        /// whoever takes it out of `state` (the thread with its reply, `onCancel`, or shutdown),
        /// and each takes it out under the lock.
        var continuation: UnsafeContinuation<[RedisReply], any Error>
    }

    private struct State {
        var queue: Deque<Job> = []
        /// Jobs in the batch on the wire.
        var onWire = 0
        /// When the batch on the wire was taken.
        var onWireSince = ContinuousClock.Instant.now
        var nextID: UInt64 = 0
        var isSleeping = false
        var isShutdown = false
        var exited = false
        var exitWaiters: [CheckedContinuation<Void, Never>] = []
        var traffic = RedisClient.Traffic()

        /// Jobs queued or on the wire: past the join window the client sends new work to the
        /// lane with the fewest, so one blocked lane (a `BLPOP`) does not hold up the rest.
        var pending: Int { queue.count + onWire }
    }

    /// Commands per round trip at most, so one burst cannot hold a huge reply set in memory.
    private static let maxBatchCommands = 1024

    private let connection: RedisConnection
    private let state = Mutex(State())
    /// The thread sleeps on it while nothing is queued; callers only signal, which never blocks.
    private let wake = DispatchSemaphore(value: 0)

    init(configuration: RedisConfiguration, shared: RedisConnection.Shared) {
        self.connection = RedisConnection(configuration: configuration, shared: shared)
        startThread()
    }

    /// How a new request would fare on this lane (``RedisClient`` picks a lane by it).
    enum Load {
        /// It would leave with a batch that goes out anyway: no round trip of its own.
        case joinable
        /// Nothing queued or on the wire: it would go out at once, in a round trip of its own.
        case idle
        /// Behind a round trip older than the join window, or a full batch.
        case busy(pending: Int)
    }

    func load(at now: ContinuousClock.Instant, joinWindow: Duration) -> Load {
        state.withLock { state in
            if state.pending == 0 { return .idle }
            guard state.queue.count < Self.maxBatchCommands else { return .busy(pending: state.pending) }
            // Queued and not yet taken: the woken thread takes it with the rest.
            if state.onWire == 0 { return .joinable }
            return now - state.onWireSince < joinWindow ? .joinable : .busy(pending: state.pending)
        }
    }

    var traffic: RedisClient.Traffic {
        state.withLock { state in
            var traffic = state.traffic
            traffic.waiting = state.pending
            return traffic
        }
    }

    /// Queues `request` and waits for its replies. A cancelled caller whose request is still
    /// queued gets `CancellationError` and its request is never sent; once sent, it runs.
    func submit(_ request: Request) async throws -> [RedisReply] {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<[RedisReply], any Error>) in
                enum Outcome {
                    case queued(wake: Bool)
                    case failed(any Error)
                }
                let outcome: Outcome = state.withLock { state in
                    if state.isShutdown { return .failed(RedisError.shutdown) }
                    if Task.isCancelled { return .failed(CancellationError()) }
                    state.queue.append(Job(id: id, request: request, continuation: continuation))
                    let wake = state.isSleeping
                    state.isSleeping = false
                    return .queued(wake: wake)
                }
                switch outcome {
                case .queued(let wake): if wake { self.wake.signal() }
                case .failed(let error): continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            let job: Job? = state.withLock { state in
                guard let index = state.queue.firstIndex(where: { $0.id == id }) else { return nil }
                return state.queue.remove(at: index)
            }
            job?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Fails queued requests with ``RedisError/Code/shutdown``, lets the batch on the wire
    /// finish, and returns once the thread has closed the connection and exited.
    func shutdown() async {
        stop()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let exited = state.withLock { state in
                if !state.exited { state.exitWaiters.append(continuation) }
                return state.exited
            }
            if exited { continuation.resume() }
        }
    }

    /// Marks the lane shut, fails what is still queued and wakes the thread so it exits after
    /// the batch on the wire. Does not wait, so a client's `deinit` can call it.
    func stop() {
        let (queued, wake): ([Job], Bool) = state.withLock { state in
            guard !state.isShutdown else { return ([], false) }
            state.isShutdown = true
            let queued = Array(state.queue)
            state.queue = []
            let wake = state.isSleeping
            state.isSleeping = false
            return (queued, wake)
        }
        for job in queued { job.continuation.resume(throwing: RedisError.shutdown) }
        if wake { self.wake.signal() }
    }

    // MARK: The lane's thread

    private func startThread() {
        let retained = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }
                let lane = Unmanaged<CommandLane>.fromOpaque(argument).takeRetainedValue()
                lane.loop()
                return nil
            }, retained)
        precondition(status == 0, "pthread_create failed: \(status)")
        pthread_detach(thread)
    }

    private func loop() {
        nameCurrentThread("redis-lane")
        while let batch = nextBatch() {
            let commands = run(batch)
            state.withLock { state in
                state.onWire = 0
                state.traffic.roundTrips += 1
                state.traffic.commands += commands
            }
        }
        connection.close()
        let waiters = state.withLock { state in
            state.exited = true
            defer { state.exitWaiters = [] }
            return state.exitWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The jobs queued so far, sleeping while there are none; nil once shut down.
    private func nextBatch() -> [Job]? {
        while true {
            let batch: [Job]? = state.withLock { state in
                if state.isShutdown { return nil }
                var batch: [Job] = []
                var commands = 0
                while let next = state.queue.first,
                    batch.isEmpty || commands + next.request.commandCount <= Self.maxBatchCommands
                {
                    commands += next.request.commandCount
                    batch.append(state.queue.removeFirst())
                }
                state.onWire = batch.count
                if batch.isEmpty { state.isSleeping = true } else { state.onWireSince = .now }
                return batch
            }
            guard let batch else { return nil }
            if !batch.isEmpty { return batch }
            wake.wait()
        }
    }

    /// Sends the batch and answers its callers; returns how many commands went out.
    private func run(_ batch: [Job]) -> Int {
        var commands: [[RedisValue]] = []
        for job in batch {
            switch job.request {
            case .command(let command): commands.append(command.arguments)
            case .pipeline(let many): for command in many { commands.append(command.arguments) }
            }
        }
        var replies: [RedisReply]
        do {
            replies = try connection.execute(pipeline: commands)
            try resendUnknownScripts(batch, &replies)
        } catch {
            // Logged by the connection's gate, once per change of state, not once per batch.
            for job in batch { job.continuation.resume(throwing: error) }
            return commands.count
        }
        var start = 0
        for job in batch {
            let count = job.request.commandCount
            job.continuation.resume(returning: Array(replies[start..<(start + count)]))
            start += count
        }
        return commands.count
    }

    /// Scripts the server did not know (`NOSCRIPT` after a restart or `SCRIPT FLUSH`) are sent
    /// again with their source, in one more round trip, and their replies replaced.
    private func resendUnknownScripts(_ batch: [Job], _ replies: inout [RedisReply]) throws(RedisError) {
        var retries: [(index: Int, command: [RedisValue])] = []
        var index = 0
        func check(_ command: EncodedCommand) {
            defer { index += 1 }
            guard let script = command.script, case .error(let message) = replies[index],
                message.hasPrefix("NOSCRIPT")
            else { return }
            // `EVALSHA <sha1> <numkeys> …` becomes `EVAL <source> <numkeys> …`.
            retries.append((index, ["EVAL", .string(script.source)] + command.arguments.dropFirst(2)))
        }
        for job in batch {
            switch job.request {
            case .command(let command): check(command)
            case .pipeline(let many): for command in many { check(command) }
            }
        }
        guard !retries.isEmpty else { return }
        let again = try connection.execute(pipeline: retries.map(\.command))
        for (retry, reply) in zip(retries, again) { replies[retry.index] = reply }
    }
}

extension RedisError {
    static var shutdown: RedisError { RedisError(code: .shutdown, message: "the Redis client was shut down") }
}
