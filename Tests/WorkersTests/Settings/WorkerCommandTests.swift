import ArgumentParser
import Testing

@testable import Workers

/// The worker executables' flags: a typo is refused instead of silently running the defaults.
@Suite(.timeLimit(.minutes(2))) struct WorkerCommandTests {
    @Test func unknownFlagsAreRefused() {
        #expect(throws: (any Error).self) { try WorkerCommand.parse(["--pipline", "x"]) }
        #expect(throws: (any Error).self) { try WorkerCommand.parse(["extra"]) }
    }

    @Test func knownFlagsAreRead() throws {
        #expect(try WorkerCommand.parse(["--pipeline", "/etc/iap/iap.yaml"]).pipeline == "/etc/iap/iap.yaml")
        #expect(throws: (any Error).self) { try WorkerCommand.parse(["--webhook"]) }
        #expect(try WorkerCommand.parse([]).pipeline == nil)
    }
}
