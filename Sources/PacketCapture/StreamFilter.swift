import RTP

/// Which RTP packets of a capture a command looks at.
public struct StreamFilter: Sendable {
    /// Only datagrams from or to this UDP port.
    public var port: UInt16?
    /// Only this SSRC.
    public var ssrc: UInt32?
    /// Only this payload type.
    public var payloadType: UInt8?

    public init(port: UInt16? = nil, ssrc: UInt32? = nil, payloadType: UInt8? = nil) {
        self.port = port
        self.ssrc = ssrc
        self.payloadType = payloadType
    }

    public func admits(_ datagram: UDPDatagram) -> Bool {
        admits(source: datagram.source, destination: datagram.destination)
    }

    /// Whether the port, if one is asked for, is either address's.
    public func admits(source: SocketAddress, destination: SocketAddress) -> Bool {
        guard let port else { return true }
        return source.port == port || destination.port == port
    }

    public func admits(ssrc packetSSRC: UInt32, payloadType packetType: UInt8) -> Bool {
        (ssrc == nil || ssrc == packetSSRC) && (payloadType == nil || payloadType == packetType)
    }
}
