import Redis
import Testing

@Test func linkedHiredisIsZeroFourteen() {
    #expect(Hiredis.version == "0.14.1")
}
