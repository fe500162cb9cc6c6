import NIOCore
@_spi(SansIO) import RTP
@_spi(SansIO) import RTSP
import SRTP

/// What a session knows about its tracks' media: where packets come from (interleaved channels or UDP
/// sockets), RFC 3550 statistics per track, the last sender report, and packets that arrived before
/// PLAY was answered.
struct MediaState {
    /// While a seek is under way: the packets that arrived since it was asked for, with their track and
    /// arrival, until its answer says which position each is of.
    var seekHeld: [(packet: RTPPacket, track: Int, arrival: ArrivalTime)]?
    struct Track {
        var description: RTSPTrack
        var statistics: ReceiverStatistics
        var senderSSRC: UInt32?
        /// The middle 32 bits of the last sender report's NTP time, and when it arrived.
        var lastSenderReport: (ntpMiddle: UInt32, arrival: ArrivalTime)?
        var senderReports = 0
        /// The latest sender report's NTP time less this machine's wall clock when it arrived.
        var senderClockOffset: Duration?
        /// The bytes of the track's RTP packets, headers included.
        var bytes: UInt64 = 0
        /// The sender said BYE.
        var ended = false
        /// Set by a resume, a seek or a reconnect: the next RTP packet is flagged as a discontinuity.
        var discontinuityPending = false
        /// After a seek: the sequence number the new position starts from (the PLAY answer's RTP-Info);
        /// packets before it, of the old position still on their way, are dropped.
        var seekSequence: UInt16?
        /// Packets of the old position dropped after a seek.
        var packetsBeforeSeek = 0
        /// For `RTP/SAVP` tracks: unprotects its SRTP and SRTCP with the `a=crypto` key.
        var srtp: SRTPReceiver?
        /// Where RTCP for this track goes: an interleaved channel, or the server's RTCP port.
        var rtcpChannel: UInt8?
        var rtcpAddress: SocketAddress?
        /// Where RTP for this track goes over UDP (its server's RTP port): the NAT's opening packet, a
        /// backchannel's media.
        var rtpAddress: SocketAddress?
        /// The source preferred for this track: the one the server announced (SETUP's Transport `ssrc=`,
        /// PLAY's RTP-Info, read as hex or as decimal), then whichever it gave way to; when it was last heard (or when
        /// PLAY
        /// was answered), and whether it has been heard at all.
        var preferredSSRCs: Set<UInt32>
        var preferredHeard: ArrivalTime
        var heardPreferred = false
        /// Packets of another source held while the announced one has not been heard yet.
        var heldOtherSource: [(RTPPacket, ArrivalTime)] = []
        /// RTP packets of another source, dropped while the preferred one streams.
        var staleSourcePackets = 0
        /// Sender reports of another source than the track's, ignored.
        var otherSourceReports = 0
        /// The sequence number and timestamp of the track's latest packet: what a relabelled source carries on.
        var latest: (sequence: UInt16, timestamp: UInt32)?
        /// Times the source took a new SSRC and carried on its sequence numbers and timestamps (a proxy or camera
        /// that renumbers its source every GOP), followed at once.
        var relabels = 0

        /// Whether `ssrc` is the track's source: the one its RTP comes from, else (before any) the one
        /// announced, else any.
        func isSource(_ ssrc: UInt32) -> Bool {
            if let senderSSRC { return ssrc == senderSSRC }
            return preferredSSRCs.isEmpty || preferredSSRCs.contains(ssrc)
        }

        enum SourceDecision {
            /// Of the track's source: hand on `released` (held earlier, in arrival order), then the packet.
            case accepted(released: [(RTPPacket, ArrivalTime)])
            /// Held until the announced source shows up (then dropped) or does not (then handed on).
            case held
            /// An older session's: dropped and counted.
            case stale
        }

        /// Whether `packet` belongs to the track. Reolink RLC-410 sends RTP of an older session on the new
        /// connection: while the preferred source has been heard within ``MediaState/staleSourceGrace``,
        /// packets of other sources are stale. Once it has been quiet that long, another source is the
        /// camera's restart (a new SSRC per GOP, an encoder restart) and is followed, preferred from then on.
        /// Until the announced source is first heard, others are held, not dropped, for
        /// ``MediaState/unheardSourceGrace`` (or ``MediaState/maxHeldOtherSource`` packets): a camera may
        /// announce an SSRC it never uses, and its first keyframe must not be lost for that. Without an
        /// announced source, every source is the track's. A new SSRC whose packet carries on the track's sequence
        /// numbers and timestamps (``RTP/ReorderBuffer/carriesOn(sequence:timestamp:after:)``) is the same source
        /// renamed (a proxy that renumbers every GOP): followed at once, as the capture road follows it; an older
        /// session's packets never carry on the new one's numbers.
        mutating func source(of packet: RTPPacket, arrival now: ArrivalTime) -> SourceDecision {
            guard !preferredSSRCs.isEmpty else { return .accepted(released: []) }
            if !preferredSSRCs.contains(packet.ssrc), heardPreferred, let latest,
                ReorderBuffer.carriesOn(sequence: packet.sequenceNumber, timestamp: packet.timestamp, after: latest)
            {
                preferredSSRCs = [packet.ssrc]
                relabels += 1
            }
            if preferredSSRCs.contains(packet.ssrc) {
                preferredHeard = now
                if !heardPreferred {
                    heardPreferred = true
                    staleSourcePackets += heldOtherSource.count
                    heldOtherSource = []
                }
                return .accepted(released: [])
            }
            if heardPreferred {
                guard now - preferredHeard >= MediaState.staleSourceGrace else {
                    staleSourcePackets += 1
                    return .stale
                }
            } else if now - preferredHeard < MediaState.unheardSourceGrace,
                heldOtherSource.count < MediaState.maxHeldOtherSource
            {
                heldOtherSource.append((packet, now))
                return .held
            }
            // The preferred source is gone (or never came): this one is the track's from now on.
            preferredSSRCs = [packet.ssrc]
            preferredHeard = now
            heardPreferred = true
            let released = heldOtherSource.filter { $0.0.ssrc == packet.ssrc }
            staleSourcePackets += heldOtherSource.count - released.count
            heldOtherSource = []
            return .accepted(released: released)
        }
    }

    /// How long the preferred source of a track may be silent before another one takes its place.
    static let staleSourceGrace = Duration.seconds(2)
    /// How long after PLAY other sources are held while the announced one has not been heard.
    static let unheardSourceGrace = Duration.milliseconds(500)
    /// The most packets held meanwhile (a 4K keyframe is some hundreds).
    static let maxHeldOtherSource = 2048

    struct EarlyPacket {
        var bytes: [UInt8]
        var track: Int
        var isRTCP: Bool
    }

    /// What an RTCP BYE meant.
    enum Goodbye: Equatable {
        /// Not from the track's sender (an older session's, a stray one): nothing ends.
        case notTheSender
        /// The track's stream is over; others still stream.
        case trackEnded
        /// Every track's sender has said BYE (a track that never sent anything, as a camera's audio with its
        /// microphone off, does not hold the session open): the stream is over.
        case streamEnded
    }

    /// A BYE for `ssrcs` on `track`'s RTCP.
    mutating func goodbye(_ ssrcs: [UInt32], track: Int) -> Goodbye {
        guard tracks.indices.contains(track), let sender = tracks[track].senderSSRC, ssrcs.contains(sender) else {
            return .notTheSender
        }
        tracks[track].ended = true
        return tracks.allSatisfy { $0.ended || $0.senderSSRC == nil } ? .streamEnded : .trackEnded
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
    var lastArrival = ArrivalTime.now()
    /// While a stall is told (``RTSPSessionEvent/stalled(silence:)``): the last arrival before it.
    var stalledSince: ArrivalTime?
    var rtpPackets: UInt64 = 0
    var invalidPackets = 0
    var droppedByConsumer = 0
    var earlyPacketsDropped = 0
    var unknownChannelFrames = 0
    /// RTP that arrived on a backchannel track (the client's to send on), dropped.
    var backchannelPackets = 0
    var receiverReportsSent = 0
    /// SRTP / SRTCP packets that failed authentication (or were replays), dropped.
    var srtpFailures = 0

    /// Per track, what earlier connections of the session counted (a session that reconnects): its
    /// statistics add them to the current connection's.
    var earlierTracks: [RTSPSessionStatistics.Track] = []

    /// The state for a new connection of the same session: the counters go on (each track's statistics
    /// become earlier totals), the tracks and routes are set up again.
    func continued() -> MediaState {
        var next = MediaState()
        next.earlierTracks = statistics()
        next.invalidPackets = invalidPackets
        next.droppedByConsumer = droppedByConsumer
        next.earlyPacketsDropped = earlyPacketsDropped
        next.backchannelPackets = backchannelPackets
        next.unknownChannelFrames = unknownChannelFrames
        next.receiverReportsSent = receiverReportsSent
        next.srtpFailures = srtpFailures
        next.rtpPackets = rtpPackets
        next.lastArrival = lastArrival
        return next
    }

    /// Each track's statistics: this connection's, added to earlier connections'.
    func statistics() -> [RTSPSessionStatistics.Track] {
        let count = max(tracks.count, earlierTracks.count)
        return (0..<count).map { index in
            let earlier = earlierTracks.indices.contains(index) ? earlierTracks[index] : nil
            guard tracks.indices.contains(index) else { return earlier ?? .init() }
            let track = tracks[index]
            return RTSPSessionStatistics.Track(
                ssrc: track.senderSSRC ?? earlier?.ssrc, packets: track.statistics.packets + (earlier?.packets ?? 0),
                bytes: track.bytes + (earlier?.bytes ?? 0), lost: track.statistics.lost + (earlier?.lost ?? 0),
                duplicates: track.statistics.duplicates + (earlier?.duplicates ?? 0),
                reordered: track.statistics.reordered + (earlier?.reordered ?? 0),
                jitterMilliseconds: track.statistics.jitterMilliseconds,
                senderReports: track.senderReports + (earlier?.senderReports ?? 0),
                senderClockOffset: track.senderClockOffset ?? earlier?.senderClockOffset,
                staleSourcePackets: track.staleSourcePackets + (earlier?.staleSourcePackets ?? 0),
                otherSourceReports: track.otherSourceReports + (earlier?.otherSourceReports ?? 0),
                sourceRelabels: track.relabels + (earlier?.sourceRelabels ?? 0))
        }
    }

    /// Sets the tracks up for a PLAY answered; `afterBreak` (a reconnect) flags each one's first packet.
    mutating func configure(
        tracks: [RTSPTrack], transport: RTSPSessionOptions.Transport, arrival: ArrivalTime,
        afterBreak: Bool = false
    ) {
        lastArrival = arrival
        self.tracks = tracks.enumerated().map { index, track in
            // A negotiated track is RTP: no RFC 3550 probation (which a stream losing every other packet
            // never passes).
            var state = Track(
                description: track,
                statistics: ReceiverStatistics(
                    clockRate: track.format.clockRate, tracker: SequenceTracker(minSequential: 1)),
                preferredSSRCs: track.announcedSSRCs, preferredHeard: arrival)
            state.discontinuityPending = afterBreak
            if transport.isInterleaved {
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
