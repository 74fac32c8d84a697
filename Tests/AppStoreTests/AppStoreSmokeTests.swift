import AppStore
import Testing

@Test func bundledRootIsAppleRootCAG3() {
    #expect(AppleRoots.rootCAG3.count > 500)
}
