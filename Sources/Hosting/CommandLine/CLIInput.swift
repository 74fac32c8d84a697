import Foundation

/// Reads the single input of a subcommand from `--file` or stdin, trimmed, and prints its
/// answer as JSON. Here rather than in an executable because both command-line tools use it:
/// the operator CLI `iap` and the developer tools `iap-dev` (decision D46).
public enum CLIInput {
    public static func read(file: String?) throws -> String {
        let data: Data
        if let file {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } else {
            data = FileHandle.standardInput.readDataToEndOfFile()
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public static func printJSON<Value: Encodable>(_ value: Value) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// One compact line with sorted keys, for reports scripts read line by line.
    public static func printJSONLine<Value: Encodable>(_ value: Value) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    public static func printJSONObject(_ object: Any) throws {
        let data = try JSONSerialization.data(
            withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        print(String(decoding: data, as: UTF8.self))
    }

    /// `{"error": CODE, "message": ...}` on stdout, as scripts parse stdout only.
    public static func printError(code: String, message: String) {
        let object = ["error": code, "message": message]
        if let data = try? JSONSerialization.data(
            withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        {
            print(String(decoding: data, as: UTF8.self))
        }
    }
}
