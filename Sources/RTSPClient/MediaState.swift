import NIOCore
import RTP
import RTSP
import SRTP

/// What a session knows about its tracks' media: where packets come from (interleaved channels or UDP
/// sockets), RFC 3550 statistics per track, the last sender report, and packets that arrived before
/// PLAY was answered.
struct MediaState {
    struct Track {
        var description: RTSPClientStateMachine.Track
        var statistics: ReceiverStatistics
        var senderSSRC: UInt32?
        /// The middle 32 bits of the last sender report's NTP time, and when it arrived.
        var lastSenderReport: (ntpMiddle: UInt32, arrival: NIODeadline)?
        var senderReports = 0
        /// The sender said BYE.
        var ended = false
        /// Set by a resume: the next RTP packet is flagged as a discontinuity.
        var resumed = false
        /// For `RTP/SAVP` tracks: unprotects its SRTP and SRTCP with the `a=crypto` key.
        var srtp: SRTPReceiver?
        /// Where RTCP for this track goes: an interleaved channel, or the server's RTCP port.
        var rtcpChannel: UInt8?
        var rtcpAddress: SocketAddress?
        /// The source preferred for this track: the one the server announced (SETUP's Transport `ssrc=`),
        /// then whichever it gave way to; and when it was last heard (or when PLAY was answered).
        var preferredSSRC: UInt32?
        var preferredHeard: NIODeadline
        /// RTP packets of another source, dropped while the preferred one streams.
        var staleSourcePackets = 0

        /// Whether a packet of source `ssrc` arriving `now` belongs to the track. Reolink RLC-410 sends RTP of
        /// an older session on the new connection: while the preferred source has been heard within
        /// ``MediaState/staleSourceGrace``, packets of other sources are stale. Once it has been quiet that
        /// long, another source is the camera's restart (a new SSRC per GOP, an encoder restart) and is
        /// followed, preferred from then on. Without an announced source, every source is the track's.
        mutating func admits(ssrc: UInt32, now: NIODeadline) -> Bool {
            guard let preferred = preferredSSRC else { return true }
            if ssrc != preferred {
                guard now - preferredHeard >= MediaState.staleSourceGrace else {
                    staleSourcePackets += 1
                    return false
                }
                preferredSSRC = ssrc
            }
            preferredHeard = now
            return true
        }
    }

    /// How long the preferred source of a track may be silent before another one takes its place.
    static let staleSourceGrace = TimeAmount.seconds(2)

    struct EarlyPacket {
        var bytes: [UInt8]
        var track: Int
        var isRTCP: Bool
    }

    /// Packets held from before the PLAY answer (some servers start sending first).
    static let maxEarlyPackets = 1024

    /// What an interleaved channel carries.
    enum Carriage {
        case rtp, rtcp
        /// Both, as a server that answers `interleaved=0-0` sends them: told apart by packet type (RFC 5761
        /// section 4: RTCP's second byte is 192–223, which an RTP payload type with its marker bit never
        /// is among the dynamic and static types in use).
        case rtpAndRTCP

        func isRTCP(_ bytes: [UInt8]) -> Bool {
            switch self {
            case .rtp: false
            case .rtcp: true
            case .rtpAndRTCP: bytes.count >= 2 && (192...223).contains(bytes[1])
            }
        }
    }

    var tracks: [Track] = []
    /// Interleaved channel → (track, what it carries).
    var routes: [UInt8: (track: Int, carriage: Carriage)] = [:]
    var early: [EarlyPacket] = []
    /// Frames that arrived before PLAY, by channel, to route once the channels are known.
    var earlyInterleaved: [(channel: UInt8, bytes: [UInt8])] = []
    var lastArrival = NIODeadline.now()
    var rtpPackets: UInt64 = 0
    var invalidPackets = 0
    var droppedByConsumer = 0
    var earlyPacketsDropped = 0
    var unknownChannelFrames = 0
    var receiverReportsSent = 0
    /// SRTP / SRTCP packets that failed authentication (or were replays), dropped.
    var srtpFailures = 0

    mutating func configure(
        tracks: [RTSPClientStateMachine.Track], transport: RTSPSessionOptions.Transport, arrival: NIODeadline
    ) {
        lastArrival = arrival
        self.tracks = tracks.enumerated().map { index, track in
            // A negotiated track is RTP: no RFC 3550 probation (which a stream losing every other packet
            // never passes).
            var state = Track(
                description: track,
                statistics: ReceiverStatistics(
                    clockRate: track.format.clockRate, tracker: SequenceTracker(minSequential: 1)),
                preferredSSRC: track.transport?.ssrc, preferredHeard: arrival)
            if transport == .tcp {
                // The channels the server chose, else the ones asked for (2 × index, one more for RTCP).
                let channels = track.transport?.interleavedChannels ?? (UInt8(2 * index), UInt8(2 * index + 1))
                routes[channels.rtp] = (index, .rtp)
                routes[channels.rtcp] = (index, channels.rtcp == channels.rtp ? .rtpAndRTCP : .rtcp)
                state.rtcpChannel = channels.rtcp
            }
            return state
        }
    }

    /// The held packets, interleaved ones routed now that the channels are known.
    mutating func takeEarly() -> [EarlyPacket] {
        var held = early
        for frame in earlyInterleaved {
            if let route = routes[frame.channel] {
                held.append(
                    EarlyPacket(bytes: frame.bytes, track: route.track, isRTCP: route.carriage.isRTCP(frame.bytes)))
            } else {
                unknownChannelFrames += 1
            }
        }
        early = []
        earlyInterleaved = []
        return held
    }

    mutating func holdEarly(_ packet: EarlyPacket) {
        guard early.count + earlyInterleaved.count < Self.maxEarlyPackets else { return earlyPacketsDropped += 1 }
        early.append(packet)
    }

    mutating func holdEarly(channel: UInt8, bytes: [UInt8]) {
        guard early.count + earlyInterleaved.count < Self.maxEarlyPackets else { return earlyPacketsDropped += 1 }
        earlyInterleaved.append((channel, bytes))
    }
}
