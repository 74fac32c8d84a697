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
        #expect(ring.authenticate(key)?.may(.read, bundleId: "com.example.game") == true)
        #expect(ring.authenticate(key)?.may(.read, bundleId: "com.example.other") == false)
        #expect(
            try APIKeyring.parse("support \(APIKeyring.hashed("k")) *").authenticate("k")?.may(.read, bundleId: "x")
                == true)
    }

    /// Signing offers is granted on the line, never implied: not by `*`, not by the default.
    @Test func signingIsAScopeOfItsOwn() throws {
        let (reader, readerLine) = APIKeyring.newKey(name: "support", apps: "*")
        let (signer, signerLine) = APIKeyring.newKey(name: "backend", apps: "com.example.game", scopes: [.read, .sign])
        let (only, onlyLine) = APIKeyring.newKey(name: "offers", apps: "com.example.game", scopes: [.sign])
        #expect(signerLine.hasSuffix(" com.example.game read,sign") && onlyLine.hasSuffix(" com.example.game sign"))
        let ring = try APIKeyring.parse([readerLine, signerLine, onlyLine].joined(separator: "\n"))
        #expect(ring.authenticate(reader)?.may(.sign, bundleId: "com.example.game") == false)
        #expect(ring.authenticate(signer)?.may(.sign, bundleId: "com.example.game") == true)
        #expect(ring.authenticate(signer)?.may(.sign, bundleId: "com.example.other") == false)
        #expect(ring.authenticate(only)?.may(.read, bundleId: "com.example.game") == false)
    }

    @Test(arguments: [
        ("backend iapk_plain com.example.game", "keys:1: the hash is `sha256:` and 64 hex digits"),
        ("backend sha256:abc", "keys:1: expected `<name> sha256:<hex> <apps> [<scopes>]`, found 2 fields"),
        ("a \(APIKeyring.hashed("1")) x read,write", "keys:1: scopes are a comma-separated list of read, sign"),
        ("a \(APIKeyring.hashed("1")) x read,", "keys:1: scopes are a comma-separated list of read, sign"),
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
