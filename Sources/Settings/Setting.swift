import Foundation

/// One documented setting: its name, its one default and its one validation rule.
///
/// The name is the environment variable (`IAP_OPS_PORT`); the optional settings file uses the
/// same names (``SettingsReader``). Every executable reads a key through the same `Setting`
/// value, so a key cannot be fatal for one process and silently ignored by another, and the
/// settings table in `docs/operations.md` is generated from these values (``SettingsCatalog``).
public struct Setting<Value: Sendable>: Sendable {
    public let descriptor: SettingDescriptor
    let parse: @Sendable (String) -> Value?

    /// - Parameters:
    ///   - expecting: what a valid value looks like, for error messages and the table
    ///     ("a port number 0–65535").
    ///   - defaultText: the default as an operator would write it; nil when the key has none
    ///     (optional, or required by some executables).
    ///   - parse: nil for any text that is not a valid value.
    ///   - redact: what `iap config check` shows of a value that carries a secret in part (a
    ///     password inside a URL); keys that are secret as a whole pass `secret: true` instead.
    public init(
        _ name: String, _ summary: String, expecting: String, default defaultText: String? = nil, secret: Bool = false,
        redact: (@Sendable (String) -> String)? = nil, parse: @escaping @Sendable (String) -> Value?
    ) {
        self.descriptor = SettingDescriptor(
            name: name, summary: summary, expectation: expecting, defaultText: defaultText, isSecret: secret,
            redact: redact ?? { secret ? "***" : $0 }
        )
        self.parse = parse
    }

    public var name: String { descriptor.name }

    /// The same key (name, summary, expectation, default, redaction) read on into another type:
    /// `transform` gets each value this key's rule accepts and returns nil for one that `T` has
    /// no value for, which is then refused like any invalid value. A leaf declares a key over
    /// words or text (the settings catalog), and the module that owns the type reads it as that.
    public func map<T: Sendable>(_ transform: @escaping @Sendable (Value) -> T?) -> Setting<T> {
        let parse = self.parse
        return Setting<T>(descriptor: descriptor) { text in parse(text).flatMap(transform) }
    }

    init(descriptor: SettingDescriptor, parse: @escaping @Sendable (String) -> Value?) {
        self.descriptor = descriptor
        self.parse = parse
    }
}

/// What the settings table and `iap config check` show about a key, whatever its type.
public struct SettingDescriptor: Sendable {
    /// The environment variable and settings-file name.
    public let name: String
    public let summary: String
    public let expectation: String
    public let defaultText: String?
    /// Never printed: `iap config check` shows `***`.
    public let isSecret: Bool
    /// A value as it may be printed.
    public let redact: @Sendable (String) -> String
}

extension Setting where Value == String {
    /// Any non-empty text (surrounding spaces trimmed).
    public static func text(_ name: String, _ summary: String, default defaultText: String? = nil, secret: Bool = false)
        -> Self
    {
        Setting(name, summary, expecting: "text", default: defaultText, secret: secret) { $0 }
    }
}

extension Setting where Value == Int {
    /// A whole number in `range`.
    public static func integer(
        _ name: String, _ summary: String, default defaultValue: Int? = nil, in range: ClosedRange<Int>
    ) -> Self {
        let expectation =
            range.upperBound == .max
            ? "an integer ≥ \(range.lowerBound)" : "an integer \(range.lowerBound)–\(range.upperBound)"
        return Setting(name, summary, expecting: expectation, default: defaultValue.map(String.init)) { text in
            Int(text).flatMap { range.contains($0) ? $0 : nil }
        }
    }

    /// A TCP port; 0 binds any free port.
    public static func port(_ name: String, _ summary: String, default defaultValue: Int) -> Self {
        Setting(name, summary, expecting: "a port number 0–65535 (0 = any free port)", default: String(defaultValue)) {
            text in
            Int(text).flatMap { (0...65535).contains($0) ? $0 : nil }
        }
    }
}

extension Setting where Value == Bool {
    /// `true`/`false` (also `1`/`0`, `yes`/`no`, any case).
    public static func flag(_ name: String, _ summary: String, default defaultValue: Bool) -> Self {
        Setting(name, summary, expecting: "true or false", default: String(defaultValue)) { text in
            switch text.lowercased() {
            case "true", "1", "yes": true
            case "false", "0", "no": false
            default: nil
            }
        }
    }
}

extension Setting where Value == Duration {
    /// A positive, finite number of seconds (fractions allowed), read to the millisecond.
    public static func seconds(_ name: String, _ summary: String, default defaultValue: String? = nil) -> Self {
        Setting(name, summary, expecting: "a positive number of seconds", default: defaultValue) { text in
            guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds < 1e9 else { return nil }
            return .milliseconds(Int64((seconds * 1000).rounded()))
        }
    }

    /// A positive whole number of milliseconds.
    public static func milliseconds(_ name: String, _ summary: String, default defaultValue: Int) -> Self {
        Setting(name, summary, expecting: "a positive whole number of milliseconds", default: String(defaultValue)) {
            text in
            Int64(text).flatMap { $0 > 0 ? .milliseconds($0) : nil }
        }
    }
}

extension Setting where Value == [String] {
    /// Comma-separated, empty items dropped.
    public static func list(_ name: String, _ summary: String) -> Self {
        Setting(name, summary, expecting: "a comma-separated list") { text in
            text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
    }
}

extension Setting {
    /// One of a fixed set of words, matched exactly or, with `ignoringCase`, in any case.
    public static func choice(
        _ name: String, _ summary: String, default defaultText: String? = nil, ignoringCase: Bool = false,
        _ choices: [String: Value]
    ) -> Self {
        let words = choices.keys.sorted()
        return Setting(name, summary, expecting: "one of \(words.joined(separator: ", "))", default: defaultText) {
            text in
            ignoringCase ? choices.first { $0.key.lowercased() == text.lowercased() }?.value : choices[text]
        }
    }
}
