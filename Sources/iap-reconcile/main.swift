import Catalog
import Reconcile
import Settings

/// `iap-reconcile`: Apple's histories back into the pipeline (docs/operations.md, "Reconcile").
await ReconcileMain.run(catalog: .pipeline)
