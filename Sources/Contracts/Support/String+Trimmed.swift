extension String {
    /// The value without surrounding whitespace (Unicode White_Space, as Foundation's
    /// `whitespacesAndNewlines`), or nil when nothing is left: publishers send `""` and `" "`
    /// for "absent" as often as they omit the field.
    ///
    /// Written on unicode scalars rather than Foundation's `trimmingCharacters(in:)`, which
    /// bridges through `NSString` and was a fifth of intake's CPU on 3 KiB signed transactions.
    /// The common case, nothing to trim, returns `self` after looking at two scalars.
    package var trimmedNonEmpty: String? {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return nil }
        if first == scalars.startIndex && scalars.index(after: last) == scalars.endIndex { return self }
        return String(scalars[first...last])
    }
}
