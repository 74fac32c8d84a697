import Foundation

extension String {
    /// The value without surrounding whitespace, or nil when nothing is left: publishers send
    /// `""` and `" "` for "absent" as often as they omit the field.
    var trimmedNonEmpty: String? {
        let trimmed = self.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}
