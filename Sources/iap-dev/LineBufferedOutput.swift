#if canImport(Glibc)
// `stdout` is a C global that Swift 6 cannot prove safe; it is only read here, once, before the
// command starts any task, and stdio locks the stream itself.
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// Makes standard output line-buffered for the long commands that print progress (`bench e2e`,
/// `bench compare`, `soak`): into a pipe (`tee`, `make`, a CI log) C's stdio otherwise buffers
/// whole blocks, and a run's rounds and progress lines appeared only when it ended.
func lineBufferedOutput() {
    setvbuf(stdout, nil, _IOLBF, 0)
}
