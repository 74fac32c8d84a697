import Foundation

extension ChildProcess {
    /// What a command run to its end left: its exit status and its combined stdout and stderr.
    public struct Completion: Sendable {
        /// The exit code; nil when a signal ended the command.
        public var exitCode: Int32?
        public var output: String
    }

    /// The path of `tool` on `PATH` (an absolute path is returned as it is).
    public static func locate(_ tool: String) throws(SpawnError) -> String {
        if tool.hasPrefix("/") { return tool }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":")
        where FileManager.default.isExecutableFile(atPath: "\(directory)/\(tool)") {
            return "\(directory)/\(tool)"
        }
        throw SpawnError("\(tool) is not on PATH")
    }

    /// Runs `tool` (a name on `PATH` or a path) to its end and returns its output. A command still
    /// running after `timeout` is killed and reported as a ``SpawnError``; one whose caller is
    /// cancelled is killed and the cancellation rethrown.
    public static func run(
        _ tool: String, _ arguments: [String], environment: [String: String]? = nil,
        timeout: Duration = .seconds(120)
    ) async throws -> Completion {
        let executable = try locate(tool)
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("iap-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let child = try ChildProcess(
            name: URL(fileURLWithPath: executable).lastPathComponent, executable: executable, arguments: arguments,
            environment: environment, output: .file(log))
        let deadline = ContinuousClock.now + timeout
        while child.isRunning && ContinuousClock.now < deadline {
            do {
                try await Task.sleep(for: .milliseconds(10))
            } catch {
                child.crash()
                _ = await child.waitForExit()  // before the log it writes to is removed
                throw error
            }
        }
        if child.isRunning {
            child.crash()
            _ = await child.waitForExit()
            throw SpawnError("\(executable) \(arguments.joined(separator: " ")) ran longer than \(timeout)")
        }
        return Completion(exitCode: child.exitCode, output: (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }
}
