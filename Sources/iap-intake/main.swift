import Workers

/// `iap-intake`: the intake stage as a process (DESIGN.md "Executables"; settings: docs/operations.md).
await WorkerMain.run(.intake)
