public import Foundation

/// Trust anchors shipped with the module.
public enum AppleRoots {
    /// DER bytes of Apple Root CA - G3, the anchor of every App Store signed JWS.
    public static let rootCAG3: Data = {
        guard let url = Bundle.module.url(forResource: "AppleRootCA-G3", withExtension: "cer"),
            let data = try? Data(contentsOf: url)
        else { preconditionFailure("AppleRootCA-G3.cer is missing from the AppStore module bundle") }
        return data
    }()
}

extension AppleRoots {
    /// Loads a trust anchor given as DER or PEM (the simulator writes PEM; Apple ships DER).
    public static func load(path: String) throws(ConfigurationError) -> Data {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigurationError(
                .invalidRootCertificate, "cannot read root certificate \(path): \(error.localizedDescription)")
        }
        let text = String(decoding: data, as: UTF8.self)
        guard text.contains("-----BEGIN CERTIFICATE-----") else { return data }
        let body =
            text
            .components(separatedBy: "-----BEGIN CERTIFICATE-----")[1]
            .components(separatedBy: "-----END CERTIFICATE-----")[0]
            .filter { !$0.isWhitespace }
        guard let der = Data(base64Encoded: body) else {
            throw ConfigurationError(.invalidRootCertificate, "\(path) is not a PEM certificate")
        }
        return der
    }
}
