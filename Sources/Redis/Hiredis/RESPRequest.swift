import Basics

/// A pipeline of commands in Redis' request format (RESP: `*<argc>\r\n` then `$<len>\r\n<bytes>\r\n`
/// per argument), written into one buffer for both wires to send as it is.
///
/// hiredis' `redisFormatCommandArgv` needs an argument vector per command (four arrays) and
/// builds each request with `sdscatfmt`, allocating as it grows: with the copies into the
/// output buffer that was a tenth of a lane thread's time. Arguments are length-prefixed, so
/// every value stays binary safe (`.bytes` may hold NUL bytes or invalid UTF-8).
enum RESPRequest {
    static func encode(_ commands: [[RedisValue]]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(commands.reduce(0) { $0 + 16 + $1.count * 24 })
        for command in commands {
            precondition(!command.isEmpty, "a Redis command needs at least its name")
            output.append(UInt8(ascii: "*"))
            appendDecimal(command.count, to: &output)
            for argument in command {
                switch argument {
                case .string(var string):
                    string.withUTF8 { appendBulk($0, to: &output) }
                case .bytes(let bytes):
                    bytes.withUnsafeBufferPointer { appendBulk($0, to: &output) }
                case .integer(let integer):
                    withDecimalDigits(of: integer) { appendBulk($0, to: &output) }
                }
            }
        }
        return output
    }

    private static func appendBulk(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "$"))
        appendDecimal(bytes.count, to: &output)
        output.append(contentsOf: bytes)
        output.append(UInt8(ascii: "\r"))
        output.append(UInt8(ascii: "\n"))
    }

    /// `value` in decimal, then `\r\n`.
    private static func appendDecimal(_ value: Int, to output: inout [UInt8]) {
        withDecimalDigits(of: Int64(value)) { output.append(contentsOf: $0) }
        output.append(UInt8(ascii: "\r"))
        output.append(UInt8(ascii: "\n"))
    }
}
