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
                    var text = String(integer)
                    text.withUTF8 { appendBulk($0, to: &output) }
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

    /// `value` (a count, never negative) in decimal, then `\r\n`, without an intermediate string.
    private static func appendDecimal(_ value: Int, to output: inout [UInt8]) {
        var width = 1
        var power = 10
        while power <= value, width < 19 {
            width += 1
            power &*= 10
        }
        let start = output.count
        output.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width))
        var remaining = value
        for index in stride(from: start + width - 1, through: start, by: -1) {
            output[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
        }
        output.append(UInt8(ascii: "\r"))
        output.append(UInt8(ascii: "\n"))
    }
}
