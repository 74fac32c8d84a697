import Logging

/// Loggers for CLI commands: warnings and errors only, so command output stays readable.
enum CLILogging {
    static func logger(_ label: String, level: Logger.Level = .warning) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }
}
