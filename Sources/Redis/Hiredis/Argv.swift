/// Lays out command arguments for `redis*CommandArgv`: one contiguous buffer plus explicit
/// lengths, so arguments may contain NUL bytes (binary safe).
enum Argv {
    static func with<Result>(
        _ arguments: [RedisValue],
        _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> Result
    ) -> Result {
        precondition(!arguments.isEmpty, "a Redis command needs at least its name")
        var storage: [UInt8] = []
        var offsets: [Int] = []
        var lengths: [Int] = []
        for argument in arguments {
            let bytes = argument.bytes
            offsets.append(storage.count)
            lengths.append(bytes.count)
            storage.append(contentsOf: bytes)
        }
        // A trailing byte keeps the buffer non-empty, so even empty arguments get a valid pointer.
        storage.append(0)
        return storage.withUnsafeBytes { buffer in
            let base = buffer.baseAddress!.assumingMemoryBound(to: CChar.self)
            var argv: [UnsafePointer<CChar>?] = offsets.map { UnsafePointer(base + $0) }
            return argv.withUnsafeMutableBufferPointer { argvBuffer in
                lengths.withUnsafeBufferPointer { lengthBuffer in
                    body(Int32(arguments.count), argvBuffer.baseAddress!, lengthBuffer.baseAddress!)
                }
            }
        }
    }
}
