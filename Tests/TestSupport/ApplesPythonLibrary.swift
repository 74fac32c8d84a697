public import Foundation
public import Processes

/// Runs a check against Apple's own Python library (`app-store-server-library`, pinned in
/// `Tests/python-requirements.txt`, installed by `make setup`): `files` and the script are written
/// to a fresh directory, and `python3 check.py <directory>` runs there.
public enum ApplesPythonLibrary {
    public static func check(_ script: String, files: [String: Data]) async throws -> ChildProcess.Completion {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("iap-apple-py-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (name, contents) in files { try contents.write(to: URL(fileURLWithPath: directory + "/" + name)) }
        try Data(script.utf8).write(to: URL(fileURLWithPath: directory + "/check.py"))
        return try await ChildProcess.run("python3", [directory + "/check.py", directory], timeout: .seconds(30))
    }
}
