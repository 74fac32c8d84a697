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
