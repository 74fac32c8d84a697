import Testing

/// The pipeline's scenarios on the embedded stack with every member in process (the pipeline
/// harness's in-process mode): all four stages, reconcile and the gateway as tasks of the test
/// process, still talking to the mock broker, a real redis-server and the simulator over TCP.
/// Each test starts a stack of its own (own broker, Redis, simulator and ports), so they run
/// side by side.
@Suite(.timeLimit(.minutes(10))) struct ScenarioTests {}
