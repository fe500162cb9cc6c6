import RTSP

/// A failure of an rtpdump command, with a message for the user. Control characters in it are escaped:
/// messages quote what servers and captures hold.
public struct RTPDumpError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description.escapingControlCharacters }
}
