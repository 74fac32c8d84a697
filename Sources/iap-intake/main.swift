import Catalog
import Settings
import Topology
import Workers

/// `iap-intake`: the intake stage as a process (docs/architecture.md; settings: docs/operations.md).
await WorkerMain.run(.intake, catalog: .pipeline)
