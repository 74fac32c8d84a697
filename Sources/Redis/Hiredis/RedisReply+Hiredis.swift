internal import CHiredis

extension RedisReply {
    /// Copies a hiredis reply tree into Swift values; the caller still frees `reply`.
    init(_ reply: UnsafePointer<redisReply>) {
        let raw = reply.pointee
        func text() -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: raw.str, count: raw.len) }
        switch raw.type {
        case REDIS_REPLY_STRING: self = .string(Array(text()))
        case REDIS_REPLY_STATUS: self = .status(String(decoding: text(), as: UTF8.self))
        case REDIS_REPLY_ERROR: self = .error(String(decoding: text(), as: UTF8.self))
        case REDIS_REPLY_INTEGER: self = .integer(Int64(raw.integer))
        case REDIS_REPLY_ARRAY:
            self = .array((0..<raw.elements).map { index in RedisReply(UnsafePointer(raw.element[index]!)) })
        default: self = .null
        }
    }
}
