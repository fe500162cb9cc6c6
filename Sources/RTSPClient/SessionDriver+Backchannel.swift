import MediaPipeline
import NIOCore
import RTP
@_spi(SansIO) import RTPTransport
@_spi(SansIO) import RTSP
import SRTP

/// The client's sending side: its backchannel tracks on the library's one sending road (an ``OutgoingTrack`` per
/// track, written by the track's edge writer), and the first packets that open a NAT's paths.
extension SessionDriver {
    /// Sends a unit on a backchannel track (on the event loop): packetized, numbered and stamped by the track's
    /// outgoing track (SRTP when the track is `RTP/SAVP` with a key), written interleaved or to the server's RTP
    /// port.
    func sendBackchannel(_ unit: MediaUnit, track index: Int) {
        guard phase == .playing, var track = backchannelTrack(index), let writer = trackWriter(index) else { return }
        var packets = FramedPackets(channel: playedTracks[index].transport?.interleavedChannels?.rtp ?? 0)
        track.send(unit, capturedAt: WallClockTime.now(), into: &packets)
        backchannelTracks[index] = track
        writer.write(packets)
    }

    /// The outgoing track of backchannel track `index` (made at its first use), or nil for a track that is not a
    /// backchannel, or that cannot be sent.
    func backchannelTrack(_ index: Int) -> OutgoingTrack? {
        if let track = backchannelTracks[index] { return track }
        guard playedTracks.indices.contains(index), playedTracks[index].isBackchannel else { return nil }
        let format = playedTracks[index].format
        let sender = RTPSender(
            payloadType: format.payloadType, clockRate: format.clockRate, ssrc: ssrc &+ UInt32(index) &+ 1)
        do {
            let protection = try Self.srtpSender(for: playedTracks[index])
            let track = try OutgoingTrack(format: format, sender: sender, protection: protection)
            backchannelTracks[index] = track
            return track
        } catch {
            logFirst(
                true, .warning,
                "track \(index): the backchannel cannot be sent: \("\(error)".escapingControlCharacters)")
            return nil
        }
    }

    /// The SRTP protection of an `RTP/SAVP` backchannel (its section's first `a=crypto` key this library can use),
    /// nil for `RTP/AVP`.
    static func srtpSender(for track: RTSPTrack) throws -> SRTPSender? {
        guard track.transport?.profile.uppercased().hasPrefix("RTP/SAVP") == true || !track.cryptoAttributes.isEmpty
        else { return nil }
        var lastError = SRTPError(.invalidKey, "its SDP gives no a=crypto key (SDES); MIKEY is not supported")
        for attribute in track.cryptoAttributes {
            do throws(SRTPError) {
                return try SRTPSender(key: SRTPKey(cryptoAttribute: attribute))
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    /// Each backchannel stream's sender report, with its CNAME: sent beside the receiver reports.
    func sendBackchannelReports() {
        let now = WallClockTime.now()
        for (index, track) in backchannelTracks {
            guard let report = track.report(at: now, canonicalName: canonicalName) else { continue }
            sendRTCP(report, track: index)
        }
    }

    /// Where track `index`'s packets and RTCP go: its interleaved channels in the RTSP connection (through the
    /// HTTP tunnel when there is one), or the server's ports from the track's UDP sockets. Nil before the track
    /// has a transport.
    func trackWriter(_ index: Int) -> TrackWriter? {
        guard media.tracks.indices.contains(index) else { return nil }
        let track = media.tracks[index]
        if let rtcp = track.rtcpChannel {
            let rtp = track.description.transport?.interleavedChannels?.rtp ?? rtcp &- 1
            return .interleaved(
                InterleavedWriter(
                    rtpChannel: rtp, rtcpChannel: rtcp, hasRoom: { true },
                    send: { [self] frames in write(Array(frames.readableBytesView)) }))
        }
        guard index < udpPairs.count, let rtcpAddress = track.rtcpAddress else { return nil }
        let pair = udpPairs[index]
        return .datagrams(
            DatagramWriter(
                rtpSocket: pair.rtp, rtcpSocket: pair.rtcpSender ?? pair.rtcp,
                rtpAddress: track.rtpAddress ?? rtcpAddress,
                rtcpAddress: rtcpAddress))
    }
}
