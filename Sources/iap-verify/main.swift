import Workers

/// `iap-verify`: the verify stage as a process (DESIGN.md "Executables"; settings: docs/operations.md).
await WorkerMain.run(.verify)
