import Testing

/// The pipeline's scenarios on the embedded stack with every member in process (the pipeline
/// harness's in-process mode): all four stages, reconcile and the gateway as tasks of the test
/// process, still talking to the mock broker, a real redis-server and the simulator over TCP.
/// Nested here, they run one after the other instead of competing for two cores.
@Suite(.serialized, .timeLimit(.minutes(10))) struct ScenarioTests {}
