import Basics
import Foundation
import Testing

@Suite struct ThreadNameTests {
    /// Linux keeps 15 bytes of a thread's name and refuses a longer one; the name is cut to fit
    /// instead of being lost, and it is the OS thread's (what `top -H` shows), not Foundation's.
    @Test func aThreadNamesItselfAndALongNameIsCut() async {
        let seen = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            Thread {
                nameCurrentThread("kafka-consumer-poll-thread")
                let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                continuation.resume(returning: comm.trimmingCharacters(in: .newlines))
            }.start()
        }
        #expect(seen == "kafka-consumer-")
    }
}
