public import Logging

/// Loggers for command-line tools (`iap`, `iap-dev`): warnings and errors only, so command
/// output stays readable. Beside the processes' logging bootstrap, which both tools also link.
public enum CLILogging {
    public static func logger(_ label: String, level: Logger.Level = .warning) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }
}
