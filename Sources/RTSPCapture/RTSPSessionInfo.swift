@_spi(SansIO) import RTSP
import SDP

/// What a capture of an RTSP session says about it: the SDP of the DESCRIBE answer, and the transports
/// SETUP agreed on.
public struct RTSPSessionInfo: Sendable {
    public var description: SessionDescription?
    /// Interleaved channels that carry RTP (the first of each SETUP's `interleaved=a-b`).
    public var rtpChannels: Set<UInt8> = []
    /// Client ports that receive RTP over UDP (the first of each SETUP's `client_port=a-b`).
    public var clientRTPPorts: Set<UInt16> = []

    /// What nothing has said yet: no description, no transports.
    public init() {}

    /// The video format of the DESCRIBE answer, if it has one.
    public var videoFormat: VideoFormat? { description?.videoFormat() }

    mutating func note(_ message: RTSPMessage) {
        if case .response(200, _) = message.kind, message.body.starts(with: Array("v=".utf8)),
            let sdp = try? SessionDescription(String(decoding: message.body, as: UTF8.self))
        {
            description = sdp
        }
        guard let value = message.header("Transport") else { return }
        let transport = TransportHeader(value)
        if let channels = transport.interleavedChannels { rtpChannels.insert(channels.rtp) }
        if let ports = transport.clientPorts { clientRTPPorts.insert(ports.rtp) }
    }
}
