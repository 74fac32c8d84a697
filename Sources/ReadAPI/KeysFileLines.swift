/// The lines of `iap-api`'s key files (``APIKeyring``, ``OfferKeyring``): `#` starts a comment,
/// fields are separated by whitespace, blank lines are skipped, and each line is named
/// `<source>:<number>` for the error that refuses it.
enum KeysFileLines {
    static func fields(of text: String, source: String) -> [(at: String, fields: [String])] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, raw in
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = line.split(whereSeparator: \.isWhitespace).map(String.init)
            return fields.isEmpty ? nil : ("\(source):\(index + 1)", fields)
        }
    }
}
