import Testing
import Redis

@Test func linkedHiredisIsZeroFourteen() {
    #expect(Hiredis.version == "0.14.1")
}
