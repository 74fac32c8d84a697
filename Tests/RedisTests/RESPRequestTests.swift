import CHiredis
import Testing

@testable import Redis

/// Requests are formatted by our own writer; hiredis' `redisFormatCommandArgv` is the reference
/// it is held to, byte for byte, for every kind of argument.
@Suite struct RESPRequestTests {
    static let commands: [[RedisValue]] = [
        ["PING"],
        ["SET", "iap:idem:{verify}:2000000000000001", "Labc", "NX", "PX", .integer(30_000)],
        ["GET", .string("ü€😀 with spaces and \r\n inside")],
        ["SET", .bytes([0, 1, 0, 255, 13, 10]), .bytes([]), .string("")],
        ["ZADD", "z", .integer(-42), "m", .integer(Int64.max), .integer(Int64.min)],
        ["HSET", "h"] + (0..<12).map { .string(String(repeating: "v", count: $0 * 37)) },
    ]

    @Test func writesWhatHiredisWrites() throws {
        for command in Self.commands {
            #expect(RESPRequest.encode([command]) == (try Self.hiredis(command)), "\(command)")
        }
        #expect(RESPRequest.encode(Self.commands) == (try Self.commands.flatMap { try Self.hiredis($0) }))
        #expect(RESPRequest.encode([]) == [])
    }

    @Test func aLargeBinaryValueKeepsItsLength() throws {
        let value = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let command: [RedisValue] = ["SET", "k", .bytes(value)]
        #expect(RESPRequest.encode([command]) == (try Self.hiredis(command)))
    }

    /// hiredis' own formatting of one command.
    static func hiredis(_ command: [RedisValue]) throws -> [UInt8] {
        let arguments = command.map(\.bytes)
        let storage = arguments.map { $0 + [0] }
        let pointers = storage.map { bytes -> UnsafeMutablePointer<CChar> in
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
            bytes.withUnsafeBytes {
                pointer.initialize(from: $0.bindMemory(to: CChar.self).baseAddress!, count: bytes.count)
            }
            return pointer
        }
        defer { for pointer in pointers { pointer.deallocate() } }
        let lengths = arguments.map(\.count)
        var text: UnsafeMutablePointer<CChar>?
        var argv: [UnsafePointer<CChar>?] = pointers.map { UnsafePointer($0) }
        let length = redisFormatCommandArgv(&text, Int32(arguments.count), &argv, lengths)
        let formatted = try #require(text)
        defer { redisFreeCommand(formatted) }
        return Array(UnsafeRawBufferPointer(start: formatted, count: Int(length)))
    }
}
