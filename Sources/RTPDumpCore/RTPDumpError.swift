/// A failure of an rtpdump command, with a message for the user.
public struct RTPDumpError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
