import Catalog
import Settings
import Topology
import Workers

/// `iap-grant`: the grant stage as a process (docs/architecture.md; settings: docs/operations.md).
await WorkerMain.run(.grant, catalog: .pipeline)
