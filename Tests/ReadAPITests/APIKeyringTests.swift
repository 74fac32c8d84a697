import ReadAPI
import Testing

@Suite struct APIKeyringTests {
    @Test func aNewKeyAuthenticatesThroughItsHashedLineOnly() throws {
        let (key, line) = APIKeyring.newKey(name: "backend", apps: "com.example.game")
        #expect(key.hasPrefix("iapk_") && key.count > 40)
        #expect(!line.contains(key), "the keys file holds the hash, never the key")
        let ring = try APIKeyring.parse(line)
        #expect(ring.authenticate(key)?.name == "backend")
        #expect(ring.authenticate(key + "x") == nil)
        #expect(ring.authenticate(key)?.mayRead(bundleId: "com.example.game") == true)
        #expect(ring.authenticate(key)?.mayRead(bundleId: "com.example.other") == false)
        #expect(
            try APIKeyring.parse("support \(APIKeyring.hashed("k")) *").authenticate("k")?.mayRead(bundleId: "x")
                == true)
    }

    @Test(arguments: [
        ("backend iapk_plain com.example.game", "keys:1: the hash is `sha256:` and 64 hex digits"),
        ("backend sha256:abc", "keys:1: expected `<name> sha256:<hex> <apps>`, found 2 fields"),
        (
            "a \(APIKeyring.hashed("1")) x\n\na \(APIKeyring.hashed("2")) y",
            "keys:3: the name 'a' is used twice"
        ),
    ])
    func aBadLineIsRefusedWithItsNumber(text: String, message: String) {
        #expect {
            _ = try APIKeyring.parse(text, source: "keys")
        } throws: { error in
            "\(error)".hasPrefix(message)
        }
    }
}
