// The build this binary comes from. `version` is the project's version: the one place it is
// written, raised when a release is cut (deploy/kubernetes/components/iap-image tags the image
// with it, and DeploymentEndToEndTests holds the two together). `revision` is "unknown" from a checkout; the
// Dockerfile rewrites it before `swift build` from its IAP_REVISION build argument (decisions
// D28, D37). Keep the revision line's shape: the Dockerfile writes exactly it.
enum BuildStamp {
    static let version = "0.1.0"
    static let revision = "unknown"
}
