import LocalServices
import Redis
import TestSupport
import Testing

/// Typed commands against a real `redis-server`: one at a time, pipelined and in a transaction.
@Suite(.timeLimit(.minutes(2))) struct RedisTypedCommandTests {
    @Test func commandsRoundTripTheirTypes() async throws {
        // A server of its own: FLUSHALL empties every database of the server.
        try await withPrivateRedisClient { _, client throws in
            #expect(try await client.execute(PING()) == "PONG")
            #expect(try await client.execute(SET("k", value: .bytes([0, 0xFF]), expiration: .milliseconds(60_000))))
            #expect(try await client.execute(GET("k")) == [0, 0xFF])
            #expect(try await !client.execute(SET("k", value: "other", condition: .nx)))
            #expect(try await client.execute(SET("k", value: "x", condition: .xx)))
            #expect(try await client.execute(GET("missing")) == nil)
            // Ten minutes: the key must outlive a loaded machine's pause before the DEL below.
            #expect(try await client.execute(PEXPIRE("k", milliseconds: 600_000)))
            #expect(try await !client.execute(PEXPIRE("missing", milliseconds: 5000)))
            #expect(try await client.execute(DEL("k", "missing")) == 1)
            #expect(try await client.execute(SADD("s", members: ["a", "b"])) == 2)
            #expect(Set(try await client.execute(SMEMBERS("s"))) == ["a", "b"])
            #expect(try await client.execute(SREM("s", members: ["a", "zz"])) == 1)
            #expect(try await client.execute(SMEMBERS("s")) == ["b"])
            #expect(try await client.execute(SREM("s", members: ["b"])) == 1)
            #expect(try await client.execute(SMEMBERS("s")).isEmpty)
            _ = try await client.send("HSET", "h", "since", "12", "other", "x")
            #expect(try await client.execute(HMGET("h", fields: ["since", "transaction"])) == [Array("12".utf8), nil])
            let all = try await client.execute(HGETALL("h"))
            #expect(
                Dictionary(uniqueKeysWithValues: all.map { ($0.field, $0.value) }) == [
                    "since": Array("12".utf8), "other": [0x78],
                ])
            #expect(try await client.execute(HGETALL("none")).isEmpty)
            #expect(try await client.execute(ZADD("z", score: 10, member: "a")))
            #expect(try await client.execute(ZADD("z", score: 20, member: "b")))
            #expect(try await !client.execute(ZADD("z", score: 15, member: "b")))
            #expect(try await client.execute(ZCARD("z")) == 2)
            #expect(try await client.execute(ZCOUNT("z", min: .inclusive(10), max: .exclusive(15))) == 1)
            #expect(
                try await client.execute(ZRANGEBYSCORE("z", min: .negativeInfinity, max: .positiveInfinity)) == [
                    "a", "b",
                ])
            let first = try await client.execute(
                ZRANGEBYSCORE.WithScores(
                    "z", min: .exclusive(10), max: .inclusive(99), limit: .init(offset: 0, count: 1)))
            #expect(first.map(\.member) == ["b"] && first.map(\.score) == [15])
            #expect(Set(try await client.execute(ZRANDMEMBER("z", count: 5))) == ["a", "b"])
            #expect(try await client.execute(ZREM("z", members: ["a", "zz"])) == 1)
            #expect(try await client.execute(INFO("server")).contains("redis_version:"))
            try await client.execute(FLUSHALL())
            #expect(try await client.execute(ZCARD("z")) == 0)
        }
    }

    @Test func aReplyOfAnotherTypeThrowsUnexpectedReplyAndAnErrorReplyThrowsServer() async throws {
        try await withRedisClient { _, client throws in
            await #expect {
                try await client.execute(EVALSHA<Int64>(RedisScript("return 'text'"), keys: []))
            } throws: { error in
                guard let error = error as? RedisError else { return false }
                return error.code == .unexpectedReply && error.message.hasPrefix("EVALSHA: expected an integer")
            }
            _ = try await client.execute(SADD("set", members: ["m"]))
            await #expect {
                try await client.execute(GET("set"))
            } throws: { error in
                (error as? RedisError)?.code == .server && "\(error)".contains("WRONGTYPE")
            }
            // The client is fine afterwards.
            #expect(try await client.execute(PING()) == "PONG")
        }
    }

    @Test func aPipelineKeepsEachCommandsReplyAndError() async throws {
        try await withRedisClient(poolSize: 1) { _, client throws in
            _ = try await client.execute(SADD("set", members: ["m"]))
            var pipeline = RedisPipeline()
            let set = pipeline.append(SET("k", value: "v", condition: .nx))
            let again = pipeline.append(SET("k", value: "w", condition: .nx))
            let wrong = pipeline.append(GET("set"))
            let get = pipeline.append(GET("k"))
            let traffic = client.traffic
            let replies = try await client.execute(pipeline)
            #expect(client.traffic.roundTrips == traffic.roundTrips + 1)
            #expect(try replies[set] && !replies[again])
            #expect(throws: RedisError(code: .server, message: "")) { try replies[wrong] }
            #expect(try replies[get] == Array("v".utf8))
            #expect(throws: RedisError(code: .server, message: "")) { try replies.throwingFirstError() }
        }
    }

    @Test func aScriptTheServerForgotIsSentAgainInsideAPipeline() async throws {
        // A server of its own: SCRIPT FLUSH empties the script cache of the whole server.
        try await withPrivateRedisClient(poolSize: 1) { _, client throws in
            let script = RedisScript("return redis.call('INCR', KEYS[1])")
            #expect(try await client.execute(EVALSHA<Int64>(script, keys: ["n"])) == 1)
            _ = try await client.send("SCRIPT", "FLUSH")
            var pipeline = RedisPipeline()
            let before = pipeline.append(GET("n"))
            let incremented = pipeline.append(EVALSHA<Int64>(script, keys: ["n"]))
            let after = pipeline.append(GET("n"))
            let replies = try await client.execute(pipeline)
            #expect(try replies[before] == Array("1".utf8))
            #expect(try replies[incremented] == 2)
            // The script ran again in one more round trip, after the rest of the pipeline.
            #expect(try replies[after] == Array("1".utf8))
            #expect(try await client.execute(GET("n")) == Array("2".utf8))
        }
    }

    @Test func aTransactionRunsAllOrNothing() async throws {
        try await withRedisClient { _, client throws in
            var transaction = RedisPipeline()
            let written = transaction.append(SET("a", value: "1", condition: .nx))
            let read = transaction.append(GET("a"))
            let replies = try await client.transaction(transaction)
            #expect(try replies[written])
            #expect(try replies[read] == Array("1".utf8))

            // A command the server refuses to queue aborts the whole transaction.
            var refused = RedisPipeline()
            refused.append(SET("b", value: "1"))
            struct Unknown: RedisCommand {
                static var name: String { "NO-SUCH-COMMAND" }
                var keys: EmptyCollection<String> { EmptyCollection() }
                func encode(into encoder: inout RedisCommandEncoder) { encoder.append(Self.name) }
                func decode(_ reply: RedisReply) throws(RedisError) -> RedisReply { reply }
            }
            refused.append(Unknown())
            await #expect(throws: RedisError(code: .server, message: "")) { try await client.transaction(refused) }
            #expect(try await client.execute(GET("b")) == nil)
        }
    }
}
