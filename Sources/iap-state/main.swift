import Catalog
import Settings
import Topology
import Workers

/// `iap-state`: the customer state stage as a process (D49; docs/architecture.md; settings: docs/operations.md).
await WorkerMain.run(.state, catalog: .pipeline)
