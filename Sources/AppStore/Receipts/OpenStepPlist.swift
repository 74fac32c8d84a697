/// Parses the flat old-style (NeXTSTEP) property lists of StoreKit 1 transaction receipts:
/// `{ "key" = "value"; key2 = value; }`. Nested dictionaries and arrays are skipped over (their
/// keys are not needed); only string values at the top level are returned.
enum OpenStepPlist {
    static func dictionary(_ bytes: [UInt8]) -> [String: String]? {
        var parser = Parser(bytes: bytes)
        return parser.topLevelDictionary()
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        mutating func topLevelDictionary() -> [String: String]? {
            self.skipWhitespace()
            guard self.consume(UInt8(ascii: "{")) else { return nil }
            var result: [String: String] = [:]
            while true {
                self.skipWhitespace()
                if self.consume(UInt8(ascii: "}")) { break }
                guard let key = self.string() else { return nil }
                self.skipWhitespace()
                guard self.consume(UInt8(ascii: "=")) else { return nil }
                self.skipWhitespace()
                if let value = self.string() {
                    result[key] = value
                } else if !self.skipComposite() {
                    return nil
                }
                self.skipWhitespace()
                guard self.consume(UInt8(ascii: ";")) else { return nil }
            }
            return result
        }

        private mutating func consume(_ byte: UInt8) -> Bool {
            guard self.index < self.bytes.count, self.bytes[self.index] == byte else { return false }
            self.index += 1
            return true
        }

        private mutating func skipWhitespace() {
            while self.index < self.bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(self.bytes[self.index]) {
                self.index += 1
            }
        }

        /// A quoted string (with `\"`, `\\`, `\n`, `\t` escapes) or a bare token.
        private mutating func string() -> String? {
            guard self.index < self.bytes.count else { return nil }
            if self.bytes[self.index] == UInt8(ascii: "\"") {
                self.index += 1
                var output: [UInt8] = []
                while self.index < self.bytes.count {
                    let byte = self.bytes[self.index]
                    self.index += 1
                    switch byte {
                    case UInt8(ascii: "\""):
                        return String(decoding: output, as: UTF8.self)
                    case UInt8(ascii: "\\"):
                        guard self.index < self.bytes.count else { return nil }
                        let escaped = self.bytes[self.index]
                        self.index += 1
                        switch escaped {
                        case UInt8(ascii: "n"): output.append(0x0A)
                        case UInt8(ascii: "t"): output.append(0x09)
                        default: output.append(escaped)
                        }
                    default:
                        output.append(byte)
                    }
                }
                return nil
            }
            let start = self.index
            while self.index < self.bytes.count, Self.isBareCharacter(self.bytes[self.index]) {
                self.index += 1
            }
            guard self.index > start else { return nil }
            return String(decoding: self.bytes[start..<self.index], as: UTF8.self)
        }

        /// Skips a nested `{…}`, `(…)` or `<…>` value, respecting quoted strings.
        private mutating func skipComposite() -> Bool {
            var depth = 0
            var inQuotes = false
            while self.index < self.bytes.count {
                let byte = self.bytes[self.index]
                self.index += 1
                if inQuotes {
                    if byte == UInt8(ascii: "\\") {
                        self.index += 1
                    } else if byte == UInt8(ascii: "\"") {
                        inQuotes = false
                    }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""): inQuotes = true
                case UInt8(ascii: "{"), UInt8(ascii: "("), UInt8(ascii: "<"): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: ")"), UInt8(ascii: ">"):
                    depth -= 1
                    if depth == 0 { return true }
                    if depth < 0 { return false }
                default: break
                }
            }
            return false
        }

        private static func isBareCharacter(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "-"), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "+"), UInt8(ascii: "$"):
                true
            default:
                false
            }
        }
    }
}
