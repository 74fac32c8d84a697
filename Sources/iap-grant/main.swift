import Workers

/// `iap-grant`: the grant stage as a process (DESIGN.md "Executables"; settings: docs/operations.md).
await WorkerMain.run(.grant)
