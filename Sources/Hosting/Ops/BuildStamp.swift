// The build this binary comes from. A source checkout builds as "dev"/"unknown"; the Dockerfile
// rewrites the two values before `swift build` from its IAP_VERSION and IAP_REVISION build
// arguments (decision D28). Keep the two lines' shape: the Dockerfile writes exactly them.
enum BuildStamp {
    static let version = "dev"
    static let revision = "unknown"
}
