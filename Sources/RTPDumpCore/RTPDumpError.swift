import RTP
import RTSP

/// A failure of an rtpdump command, with a message for the user. Control characters in it are escaped:
/// messages quote what servers and captures hold.
package struct RTPDumpError: Error, CustomStringConvertible, Sendable {
    package let description: String
    package init(_ description: String) { self.description = description.escapingControlCharacters }
}

/// Runs `body` and returns what it threw instead of throwing it: for a loop over an input (a capture
/// damaged half-way, a live session that ends with an error) whose failure must not lose what was
/// gathered before it. The caller reports what it has, then throws the failure.
package func failure(of body: () throws -> Void) -> (any Error)? {
    do {
        try body()
        return nil
    } catch {
        return error
    }
}
