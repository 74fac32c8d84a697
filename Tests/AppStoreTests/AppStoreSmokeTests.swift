import Testing
import AppStore

@Test func bundledRootIsAppleRootCAG3() {
    #expect(AppleRoots.rootCAG3.count > 500)
}
