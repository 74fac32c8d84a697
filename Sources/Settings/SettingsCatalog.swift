/// Every key of one group of settings, as the table in `docs/operations.md` lists it.
public struct SettingsSection: Sendable {
    public var title: String
    /// Which executables read these keys.
    public var readBy: String
    public var settings: [SettingDescriptor]

    public init(_ title: String, readBy: String, _ settings: [SettingDescriptor]) {
        self.title = title
        self.readBy = readBy
        self.settings = settings
    }
}

/// The settings of every executable, in one list: what `iap config keys` prints, what the table
/// in `docs/operations.md` is checked against, and what tells a known key from a typo.
public struct SettingsCatalog: Sendable {
    public var sections: [SettingsSection]
    /// Families of keys named by a prefix (`IAP_KAFKA_<PROPERTY>`), with their description.
    public var prefixes: [(prefix: String, summary: String)]

    public init(sections: [SettingsSection], prefixes: [(prefix: String, summary: String)] = []) {
        self.sections = sections
        self.prefixes = prefixes
    }

    public var descriptors: [SettingDescriptor] { sections.flatMap(\.settings) }

    /// Whether `name` is a documented key or belongs to a documented family.
    public func knows(_ name: String) -> Bool {
        descriptors.contains { $0.name == name } || prefixes.contains { name.hasPrefix($0.prefix) }
    }

    /// Names in `reader` that look like this project's (`IAP_` prefix) but are not documented:
    /// almost always a typo, which would otherwise leave the default silently in force.
    public func unknownNames(in reader: SettingsReader) -> [String] {
        reader.names.filter { $0.hasPrefix("IAP_") && !knows($0) }.sorted()
    }

    /// Refuses the first unknown `IAP_` name, suggesting the documented key it most resembles.
    public func refuseUnknownNames(in reader: SettingsReader) throws(SettingsError) {
        guard let name = unknownNames(in: reader).first else { return }
        let suggestion = descriptors.map(\.name).min { distance($0, name) < distance($1, name) }
        let hint = suggestion.map { " (did you mean \($0)?)" } ?? ""
        throw SettingsError(
            .unknownKey, key: name, "\(name) is not a setting of iap-pipeline\(hint); see docs/operations.md")
    }

    /// The table of `docs/operations.md`, in Markdown.
    public var markdown: String {
        var lines: [String] = []
        for section in sections {
            lines.append("#### \(section.title) (\(section.readBy))")
            lines.append("")
            lines.append("| Key | Default | Value | Meaning |")
            lines.append("| --- | --- | --- | --- |")
            for setting in section.settings {
                let value = setting.isSecret ? "\(setting.expectation) (secret)" : setting.expectation
                lines.append(
                    "| `\(setting.name)` | \(setting.defaultText.map { "`\($0)`" } ?? "–") | \(value) | \(setting.summary) |"
                )
            }
            lines.append("")
        }
        if !prefixes.isEmpty {
            lines.append("#### Families")
            lines.append("")
            lines.append("| Keys | Meaning |")
            lines.append("| --- | --- |")
            for family in prefixes { lines.append("| `\(family.prefix)<NAME>` | \(family.summary) |") }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    /// Levenshtein distance, for "did you mean".
    private func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8)
        let b = Array(b.utf8)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
