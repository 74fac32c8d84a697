import Foundation

/// Reads the single input of a subcommand from `--file` or stdin, trimmed.
enum CLIInput {
    static func read(file: String?) throws -> String {
        let data: Data
        if let file {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } else {
            data = FileHandle.standardInput.readDataToEndOfFile()
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func printJSON<Value: Encodable>(_ value: Value) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// One compact line with sorted keys, for reports scripts read line by line.
    static func printJSONLine<Value: Encodable>(_ value: Value) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    static func printJSONObject(_ object: Any) throws {
        let data = try JSONSerialization.data(
            withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        print(String(decoding: data, as: UTF8.self))
    }

    /// `{"error": CODE, "message": ...}` on stdout, as scripts parse stdout only.
    static func printError(code: String, message: String) {
        let object = ["error": code, "message": message]
        if let data = try? JSONSerialization.data(
            withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        {
            print(String(decoding: data, as: UTF8.self))
        }
    }
}
