/// Which build runs, as `iap_build_info{version,revision,swift,process}` reports it.
public enum BuildInfo {
    /// The project's version, the same from a checkout and from the image.
    public static let version = BuildStamp.version
    /// The git revision (`IAP_REVISION` of the image build; "unknown" from a checkout).
    public static let revision = BuildStamp.revision
    /// What every executable's `--version` prints: `0.1.0 (revision 3f2c…)`.
    public static var versionLine: String { "\(version) (revision \(revision))" }
    /// The Swift compiler's language version the binary was built with.
    public static let swift: String = {
        #if compiler(>=6.5)
        return ">=6.5"
        #elseif compiler(>=6.4)
        return "6.4"
        #elseif compiler(>=6.3)
        return "6.3"
        #elseif compiler(>=6.2)
        return "6.2"
        #elseif compiler(>=6.1)
        return "6.1"
        #else
        return "<6.1"
        #endif
    }()
}
