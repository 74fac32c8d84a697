import Redis
import Testing

@Suite struct RedisScriptTests {
    /// SHA-1s as `SCRIPT LOAD` returns them: the Redis documentation's `EVALSHA` example, a
    /// one-liner, a script longer than one 64-byte SHA-1 block, and the empty string (FIPS 180).
    @Test(arguments: [
        ("return 'Immabe a cached script'", "c664a3bf70bd1d45c4284ffebb65a6f2299bfc9f"),
        ("return 1", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"),
        (
            "local a = redis.call('GET', KEYS[1])\nif a then return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end\nreturn nil",
            "702fd2d33da20bba0fbbfd7c796a18ee07bcc28b"
        ),
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
    ])
    func namesScriptsAsRedisDoes(source: String, sha1: String) {
        #expect(RedisScript(source).sha1 == sha1)
    }
}
