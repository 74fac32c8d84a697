public import Basics

extension JSONReader {
    /// One of Apple's nested models (D59), or nil for `null`: its bytes decoded by
    /// `Codable`, as rare as they are deep.
    public mutating func optionalDecoded<Value: Decodable>(_ type: Value.Type) throws(Failure) -> Value? {
        if try self.readNull() { return nil }
        let bytes = try self.valueBytes()
        do {
            return try EventDecoder.decodeWithCodable(type, from: bytes)
        } catch {
            throw Failure(offset: bytes.startIndex, detail: "\(type): \(error)")
        }
    }
}
