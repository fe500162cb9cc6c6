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
        guard let port else { return true }
        return datagram.source.port == port || datagram.destination.port == port
    }

    public func admits(ssrc packetSSRC: UInt32, payloadType packetType: UInt8) -> Bool {
        (ssrc == nil || ssrc == packetSSRC) && (payloadType == nil || payloadType == packetType)
    }
}
