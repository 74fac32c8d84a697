import Catalog
import Settings
import Topology
import Workers

/// `iap-match`: the match stage as a process (docs/architecture.md; settings: docs/operations.md).
await WorkerMain.run(.match, catalog: .pipeline)
