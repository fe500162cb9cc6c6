import RTP

/// What identifies one RTP stream in a capture: its SSRC and its UDP addresses.
public struct StreamKey: Hashable, Sendable, CustomStringConvertible {
    public let ssrc: UInt32
    public let source: SocketAddress
    public let destination: SocketAddress

    public init(ssrc: UInt32, source: SocketAddress, destination: SocketAddress) {
        self.ssrc = ssrc
        self.source = source
        self.destination = destination
    }

    public var description: String { "SSRC \(hex32(ssrc)) \(source) -> \(destination)" }
}
