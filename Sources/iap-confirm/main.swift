import Catalog
import Settings
import Topology
import Workers

/// `iap-confirm`: the confirm stage as a process (D55; docs/architecture.md; settings: docs/operations.md).
await WorkerMain.run(.confirm, catalog: .pipeline)
