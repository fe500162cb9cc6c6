import NIOCore
import RTP
import RTSP

extension SessionDriver {
    /// Sends payloads on a backchannel track (on the event loop): each numbered and stamped by the track's
    /// RTP stream, interleaved on its RTP channel or to the server's RTP port.
    func sendBackchannel(_ payloads: [(payload: [UInt8], marker: Bool, timestamp: UInt64)], track: Int) {
        guard phase == .playing, playedTracks.indices.contains(track), playedTracks[track].isBackchannel else { return }
        let format = playedTracks[track].format
        var sender =
            backchannelSenders[track] ?? RTPSender(payloadType: format.payloadType, clockRate: format.clockRate, ssrc: ssrc &+ UInt32(track) &+ 1)
        let now = WallClockTime.now()
        for item in payloads {
            var packet: [UInt8] = []
            sender.append(payload: item.payload, marker: item.marker, timestamp: item.timestamp, capturedAt: now, to: &packet)
            if let channels = playedTracks[track].transport?.interleavedChannels {
                guard let frame = RTSPFramer.interleavedFrame(channel: channels.rtp, payload: packet) else { continue }
                write(frame)
            } else if let ports = playedTracks[track].transport?.serverPorts, let remote = controlRemoteAddress?.ipAddress,
                track < udpPairs.count, let address = try? SocketAddress(ipAddress: remote, port: Int(ports.rtp))
            {
                udpPairs[track].rtp.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: ByteBuffer(bytes: packet)), promise: nil)
            }
        }
        backchannelSenders[track] = sender
    }

    /// Each backchannel stream's sender report, with its CNAME: sent beside the receiver reports.
    func sendBackchannelReports() {
        let now = WallClockTime.now()
        for (track, sender) in backchannelSenders {
            guard let report = sender.senderReport(at: now) else { continue }
            var builder = RTCPCompoundBuilder()
            builder.appendSenderReport(report)
            builder.appendCanonicalName(canonicalName, ssrc: sender.ssrc)
            sendRTCP(builder.bytes, track: track)
        }
    }
}
