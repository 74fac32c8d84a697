import Catalog
import Settings
import Topology
import Workers

/// `iap-verify`: the verify stage as a process (docs/architecture.md; settings: docs/operations.md).
await WorkerMain.run(.verify, catalog: .pipeline)
