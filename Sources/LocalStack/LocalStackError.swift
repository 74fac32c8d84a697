/// Why the local stack could not start or do what was asked.
public struct LocalStackError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
