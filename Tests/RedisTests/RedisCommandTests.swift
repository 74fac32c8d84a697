import Redis
import Testing

/// The typed command layer without a server: what each command puts on the wire, the keys it
/// names, whether it only reads, and how its reply decodes (a reply of another shape is a
/// `RedisError` with code `unexpectedReply`, never a crash).
@Suite struct RedisCommandTests {
    static func wire(_ command: some RedisCommand) -> [String] {
        command.encoded.arguments.map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    @Test func argumentsKeysAndReadOnlyFlag() {
        #expect(Self.wire(GET("k")) == ["GET", "k"])
        #expect(Array(GET("k").keys) == ["k"] && GET("k").isReadOnly)
        #expect(Self.wire(SET("k", value: "v")) == ["SET", "k", "v"])
        #expect(
            Self.wire(SET("k", value: .bytes([0x61, 0]), condition: .nx, expiration: .milliseconds(1500)))
                == ["SET", "k", "a\0", "NX", "PX", "1500"])
        #expect(Self.wire(SET("k", value: "v", condition: .xx)) == ["SET", "k", "v", "XX"])
        #expect(Self.wire(SET("k", value: "D", expiration: .milliseconds(7))) == ["SET", "k", "D", "PX", "7"])
        #expect(!SET("k", value: "v").isReadOnly)
        #expect(Self.wire(DEL("a", "b")) == ["DEL", "a", "b"] && DEL("a", "b").keys == ["a", "b"])
        #expect(Self.wire(PEXPIRE("k", milliseconds: 30_000)) == ["PEXPIRE", "k", "30000"])
        #expect(Self.wire(HMGET("h", fields: ["since", "transaction"])) == ["HMGET", "h", "since", "transaction"])
        #expect(HMGET("h", fields: []).isReadOnly && HGETALL("h").isReadOnly)
        #expect(Self.wire(HGETALL("h")) == ["HGETALL", "h"])
        #expect(Self.wire(SADD("s", members: ["m"])) == ["SADD", "s", "m"])
        #expect(Self.wire(SREM("s", members: ["m", "n"])) == ["SREM", "s", "m", "n"])
        #expect(!SREM("s", members: []).isReadOnly)
        #expect(Self.wire(SMEMBERS("s")) == ["SMEMBERS", "s"] && SMEMBERS("s").isReadOnly)
        #expect(Self.wire(ZADD("z", score: 1_700_000_000_000, member: "m")) == ["ZADD", "z", "1700000000000", "m"])
        #expect(Self.wire(ZREM("z", members: ["m", "n"])) == ["ZREM", "z", "m", "n"])
        #expect(
            Self.wire(
                ZRANGEBYSCORE("z", min: .negativeInfinity, max: .inclusive(99), limit: .init(offset: 0, count: 5)))
                == ["ZRANGEBYSCORE", "z", "-inf", "99", "LIMIT", "0", "5"])
        #expect(
            Self.wire(
                ZRANGEBYSCORE.WithScores(
                    "z", min: .inclusive(10), max: .exclusive(20), limit: .init(offset: 0, count: 1)))
                == ["ZRANGEBYSCORE", "z", "10", "(20", "WITHSCORES", "LIMIT", "0", "1"])
        #expect(Self.wire(ZCOUNT("z", min: .inclusive(0), max: .positiveInfinity)) == ["ZCOUNT", "z", "0", "+inf"])
        #expect(Self.wire(ZCARD("z")) == ["ZCARD", "z"] && ZCARD("z").isReadOnly)
        #expect(Self.wire(ZRANDMEMBER("z", count: 3)) == ["ZRANDMEMBER", "z", "3"])
        #expect(Self.wire(PING()) == ["PING"] && PING().keys.isEmpty)
        #expect(Self.wire(INFO("commandstats")) == ["INFO", "commandstats"] && Self.wire(INFO()) == ["INFO"])
        #expect(Self.wire(FLUSHALL()) == ["FLUSHALL"] && !FLUSHALL().isReadOnly)
    }

    @Test func scriptsGoOutAsEvalshaAndKeepTheirSourceForTheFallback() {
        let script = RedisScript("return KEYS[1]")
        let command = EVALSHA<String>(script, keys: ["a", "b"], arguments: ["x", .integer(5)])
        #expect(Self.wire(command) == ["EVALSHA", script.sha1, "2", "a", "b", "x", "5"])
        #expect(command.encoded.script == script)
        #expect(command.keys == ["a", "b"] && !command.isReadOnly)
        #expect(GET("k").encoded.script == nil)
    }

    @Test func repliesDecodeToTheCommandsResponse() throws {
        #expect(try GET("k").decodeReply(.string([0, 1])) == [0, 1])
        #expect(try GET("k").decodeReply(.null) == nil)
        #expect(try SET("k", value: "v").decodeReply(.status("OK")))
        #expect(try !SET("k", value: "v", condition: .nx).decodeReply(.null))
        #expect(try DEL("a").decodeReply(.integer(1)) == 1)
        #expect(try PEXPIRE("k", milliseconds: 1).decodeReply(.integer(0)) == false)
        #expect(try HMGET("h", fields: ["a", "b"]).decodeReply(.array([.string([0x31]), .null])) == [[0x31], nil])
        let all = try HGETALL("h").decodeReply(.array([.string(Array("f".utf8)), .string([7])]))
        #expect(all.count == 1 && all[0].field == "f" && all[0].value == [7])
        let scored = try ZRANGEBYSCORE.WithScores("z", min: .inclusive(0), max: .inclusive(1))
            .decodeReply(.array([.string(Array("m".utf8)), .string(Array("12".utf8))]))
        #expect(scored.count == 1 && scored[0].member == "m" && scored[0].score == 12)
        #expect(try ZRANGEBYSCORE("z", min: .inclusive(0), max: .inclusive(1)).decodeReply(.array([])) == [])
        #expect(try PING().decodeReply(.status("PONG")) == "PONG")
        try FLUSHALL().decodeReply(.status("OK"))
        #expect(try EVALSHA<Int64?>(RedisScript("return false"), keys: []).decodeReply(.null) == nil)
        #expect(
            try EVALSHA<[Int64]>(RedisScript(""), keys: []).decodeReply(.array([.integer(1), .integer(2)])) == [1, 2])
        #expect(try EVALSHA<RedisReply>(RedisScript(""), keys: []).decodeReply(.array([.null])) == .array([.null]))
    }

    @Test func aReplyOfAnotherShapeIsAnUnexpectedReplyErrorNamingTheCommand() {
        #expect {
            try GET("state:1").decodeReply(.integer(3))
        } throws: { error in
            guard let error = error as? RedisError else { return false }
            return error.code == .unexpectedReply
                && error.message == "GET state:1: expected a bulk string, got the integer 3"
        }
        #expect(throws: RedisError(code: .unexpectedReply, message: "")) {
            try SET("k", value: "v").decodeReply(.integer(1))
        }
        #expect(throws: RedisError(code: .unexpectedReply, message: "")) {
            try ZCARD("z").decodeReply(.array([]))
        }
        #expect(throws: RedisError(code: .unexpectedReply, message: "")) {
            try HGETALL("h").decodeReply(.array([.string([])]))
        }
        #expect(throws: RedisError(code: .unexpectedReply, message: "")) {
            try HMGET("h", fields: ["a", "b"]).decodeReply(.array([.null]))
        }
        #expect(throws: RedisError(code: .unexpectedReply, message: "")) {
            try EVALSHA<Bool>(RedisScript(""), keys: []).decodeReply(.integer(2))
        }
        #expect(throws: RedisError(code: .unexpectedReply, message: "")) {
            try EVALSHA<[String]>(RedisScript(""), keys: []).decodeReply(.array([.integer(1)]))
        }
        #expect(throws: RedisError(code: .unexpectedReply, message: "")) {
            try FLUSHALL().decodeReply(.null)
        }
    }

    @Test func anErrorReplyIsAServerErrorWithItsText() {
        #expect {
            try GET("k").decodeReply(.error("WRONGTYPE Operation against a key holding the wrong kind of value"))
        } throws: { error in
            (error as? RedisError)?.code == .server && (error as? RedisError)?.message.hasPrefix("WRONGTYPE") == true
        }
        // Inside an array (a script's table), too.
        #expect(throws: RedisError(code: .server, message: "")) {
            try EVALSHA<[String]>(RedisScript(""), keys: []).decodeReply(.array([.error("ERR nested")]))
        }
    }

    @Test func pipelineSlotsDecodeTheirOwnReplies() throws {
        var pipeline = RedisPipeline()
        let set = pipeline.append(SET("k", value: "v", condition: .nx))
        let get = pipeline.append(GET("k"))
        let count = pipeline.append(ZCARD("z"))
        #expect(pipeline.count == 3 && set.index == 0 && get.index == 1 && count.index == 2)
        let replies = RedisPipeline.Replies(replies: [.null, .string(Array("v".utf8)), .error("WRONGTYPE z")])
        #expect(try replies[set] == false)
        #expect(try replies[get] == Array("v".utf8))
        #expect(throws: RedisError(code: .server, message: "")) { try replies[count] }
        #expect(throws: RedisError(code: .server, message: "")) { try replies.throwingFirstError() }
    }
}
