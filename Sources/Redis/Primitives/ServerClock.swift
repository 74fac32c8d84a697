/// Lua that reads the Redis server's clock. Scripts use it instead of a client timestamp so
/// workers with skewed clocks agree on due times and rate windows.
public enum ServerClock {
    /// Defines `now_ms`, the server's UNIX time in milliseconds.
    public static let nowMilliseconds = """
        local server_time = redis.call('TIME')
        local now_ms = tonumber(server_time[1]) * 1000 + math.floor(tonumber(server_time[2]) / 1000)

        """
}
