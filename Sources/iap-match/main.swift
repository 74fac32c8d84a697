import Workers

/// `iap-match`: the match stage as a process (DESIGN.md "Executables"; settings: docs/operations.md).
await WorkerMain.run(.match)
