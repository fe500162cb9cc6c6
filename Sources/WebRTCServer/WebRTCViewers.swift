@_spi(SansIO) import DTLS
@_spi(SansIO) import ICE
import Logging
import NIOCore
import PacketCapture
@_spi(SansIO) import RTP
@_spi(SansIO) import RTPTransport
import RTSPServer
@_spi(SansIO) import WebRTC

/// Every WebRTC viewer of a server, on its one UDP socket, driven on that socket's event loop: datagrams routed
/// to a viewer by their source address (known once ICE checked it) or, for a STUN check, by the username it
/// names; each viewer's actions carried out; one timer for what is due first (setup deadlines, DTLS
/// retransmissions, ICE consent). A viewer whose DTLS is keyed is subscribed to its source with one
/// ``ProtectedDatagramWriter`` per track; one that closes is unsubscribed and forgotten.
final class WebRTCViewers: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    /// One viewer: its transport, its source, its subscription once keyed.
    final class Viewer {
        let id: String
        let peer: WebRTCPeer
        let source: MediaSource
        /// Where its audio comes from when the source's is re-encoded to Opus.
        let transcoder: OpusTranscoder?
        /// Where its voice goes, when its answer lets it talk.
        let talkback: Talkback?
        /// Its subscriptions once keyed: to the source, and to the transcoder's.
        var subscriptions: [(source: MediaSource, subscriber: Subscriber)] = []
        /// What went to it, for its NACKs and round trip.
        let history: SentPacketHistory
        let path: String
        var statistics: WebRTCViewerStatistics

        init(
            id: String, path: String, peer: WebRTCPeer, source: MediaSource, transcoder: OpusTranscoder?,
            talkback: Talkback?, history: SentPacketHistory
        ) {
            self.talkback = talkback
            self.id = id
            self.path = path
            self.peer = peer
            self.source = source
            self.transcoder = transcoder
            self.history = history
            statistics = WebRTCViewerStatistics(id: id, path: path)
        }
    }

    private let logger: Logger
    private var channel: (any Channel)?
    /// Viewers by their id (the WHEP resource's last path component).
    private var viewers: [String: Viewer] = [:]
    /// Viewers by our ICE username fragment (what their checks name first).
    private var byUsername: [String: Viewer] = [:]
    /// Viewers by the addresses ICE checked.
    private var byAddress: [PacketCapture.SocketAddress: Viewer] = [:]
    private var wakeUp = WakeUpTimer()

    init(logger: Logger) { self.logger = logger }

    var count: Int { viewers.count }

    /// Viewers not yet keyed (each holds a DTLS context and a slot until its setup deadline).
    var pendingCount: Int { viewers.values.filter { $0.subscriptions.isEmpty }.count }

    func channelActive(context: ChannelHandlerContext) {
        channel = context.channel
        context.fireChannelActive()
    }

    /// Adds a viewer (on the socket's event loop).
    func add(_ viewer: Viewer) {
        viewers[viewer.id] = viewer
        byUsername[viewer.peer.agent.local.usernameFragment] = viewer
        armWakeUp()
    }

    /// Each viewer's figures now.
    var statistics: [WebRTCViewerStatistics] {
        viewers.values.map { viewer in
            var figures = viewer.statistics
            figures.rtcpPackets = viewer.peer.rtcpReceived
            figures.talkPackets = viewer.peer.talkReceived
            return figures
        }.sorted { $0.id < $1.id }
    }

    /// Ends a viewer (its WHEP resource deleted, or the server stopping).
    func remove(id: String, reason: String) -> Bool {
        guard let viewer = viewers[id] else { return false }
        forget(viewer, reason: reason)
        return true
    }

    func removeAll() {
        for viewer in viewers.values { forget(viewer, reason: "the server stopped") }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard let from = Self.address(envelope.remoteAddress) else { return }
        var buffer = envelope.data
        guard let bytes = buffer.readBytes(length: buffer.readableBytes), let first = bytes.first else { return }
        let viewer: Viewer?
        if let known = byAddress[from] {
            viewer = known
        } else if first < 4, let message = try? STUNMessage(parsing: bytes), let username = message.username,
            let ours = username.split(separator: ":").first
        {
            viewer = byUsername[String(ours)]
        } else {
            viewer = nil
        }
        guard let viewer else { return }
        carryOut(viewer.peer.receive(bytes, from: from, now: .now()), for: viewer)
        if viewer.peer.agent.isChecked(from) { byAddress[from] = viewer }
        armWakeUp()
    }

    private func carryOut(_ actions: [WebRTCPeer.Action], for viewer: Viewer) {
        guard let channel else { return }
        for action in actions {
            switch action {
            case .send(let bytes, let to):
                Self.send(bytes, to: to, on: channel)
            case .ready:
                subscribe(viewer)
            case .closed(let reason):
                forget(viewer, reason: reason)
            case .retransmit(let ssrc, let sequenceNumbers):
                viewer.statistics.negativeAcknowledgements += sequenceNumbers.count
                guard let address = viewer.peer.mediaAddress else { continue }
                let resent = Self.resend(sequenceNumbers, ssrc: ssrc, from: viewer.history, to: address, on: channel)
                viewer.statistics.retransmittedPackets += resent.sent
                viewer.statistics.retransmissionsUnavailable += resent.unavailable
            case .keyframeRequested(let ssrc):
                viewer.statistics.keyframeRequests += 1
                guard let track = viewer.peer.answer.tracks.first(where: { $0.ssrc == ssrc }), !track.transcodedToOpus
                else { continue }
                viewer.source.requestKeyframe(track: track.sourceTrack)
            case .talk(let packet):
                viewer.talkback?.take(packet, from: viewer.id, now: .now())
            case .receiverReport(let block):
                viewer.statistics.fractionLost = Double(block.fractionLost) / 256
                viewer.statistics.cumulativeLost = Int(block.cumulativeLost)
                if let trip = viewer.history.roundTrip(block, receivedAt: .now()) {
                    viewer.statistics.roundTripTime = trip
                }
            }
        }
    }

    /// The viewer's tracks, each through its protected writer: from its source, and re-encoded audio from the
    /// transcoder's.
    private func subscribe(_ viewer: Viewer) {
        guard viewer.subscriptions.isEmpty, let channel, let protection = viewer.peer.protection,
            let address = viewer.peer.mediaAddress.flatMap(Self.nioAddress)
        else { return }
        let shared = ProtectedDatagramWriter.Protection(protection)
        func writer(_ track: WebRTCAnswer.Track) -> TrackWriter {
            .protected(
                ProtectedDatagramWriter(
                    socket: channel, address: address, payloadType: track.payloadType, ssrc: track.ssrc,
                    sharing: shared, history: viewer.history))
        }
        var direct: [Int: TrackWriter] = [:]
        var transcoded: [Int: TrackWriter] = [:]
        for track in viewer.peer.answer.tracks {
            if track.transcodedToOpus {
                transcoded[0] = writer(track)
            } else {
                direct[track.sourceTrack] = writer(track)
            }
        }
        // The source is subscribed to even when all it sends this viewer is re-encoded: the transcoder is fed by
        // its units, and a source may start only once it has a viewer (a capture replayed from its start).
        var sources = [(viewer.source, direct)]
        if let transcoder = viewer.transcoder, !transcoded.isEmpty { sources.append((transcoder.source, transcoded)) }
        for (source, writers) in sources {
            let formats = source.formats
            let subscriber = Subscriber(
                writers: writers, videoTracks: Set(formats.indices.filter { formats[$0].kind == .video }))
            // From the latest keyframe: a picture at once, not a group of pictures later.
            guard source.subscribe(subscriber, fromLatestKeyframe: true, starting: { _ in }) else {
                return forget(viewer, reason: "its source has ended")
            }
            viewer.subscriptions.append((source, subscriber))
        }
        viewer.statistics.isPlaying = true
        viewer.statistics.address = viewer.peer.mediaAddress?.description
        logger.info("a WebRTC viewer plays", metadata: ["viewer": "\(viewer.id)"])
    }

    private func forget(_ viewer: Viewer, reason: String) {
        guard viewers.removeValue(forKey: viewer.id) != nil else { return }
        for (source, subscriber) in viewer.subscriptions { source.unsubscribe(subscriber) }
        viewer.subscriptions = []
        viewer.talkback?.left(viewer.id)
        byUsername[viewer.peer.agent.local.usernameFragment] = nil
        for (address, held) in byAddress where held === viewer { byAddress[address] = nil }
        logger.info("a WebRTC viewer left", metadata: ["viewer": "\(viewer.id)", "reason": "\(reason)"])
    }

    /// One timer, for the earliest viewer's next deadline.
    private func armWakeUp() {
        guard let channel else { return }
        wakeUp.set(at: viewers.values.compactMap(\.peer.nextWakeUp).min(), on: channel.eventLoop) { [self] in
            wakeUp.fired()
            let now = ArrivalTime.now()
            for viewer in Array(viewers.values) { carryOut(viewer.peer.wake(now: now), for: viewer) }
            armWakeUp()
        }
    }

    /// A peer's datagram (a check's answer, DTLS) to `address`.
    static func send(_ bytes: [UInt8], to address: PacketCapture.SocketAddress, on channel: any Channel) {
        guard let address = nioAddress(address) else { return }
        channel.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: ByteBuffer(bytes: bytes)), promise: nil)
    }

    /// The packets of `ssrc` a NACK named, sent again to `address` from `history`: how many were, and how many it no
    /// longer holds.
    static func resend(
        _ numbers: [UInt16], ssrc: UInt32, from history: SentPacketHistory, to address: PacketCapture.SocketAddress,
        on channel: any Channel
    ) -> (sent: Int, unavailable: Int) {
        guard let address = nioAddress(address) else { return (0, 0) }
        var sent = 0
        for number in numbers {
            guard let packet = history.packet(ssrc: ssrc, sequenceNumber: number) else { continue }
            channel.write(AddressedEnvelope(remoteAddress: address, data: ByteBuffer(bytes: packet)), promise: nil)
            sent += 1
        }
        channel.flush()
        return (sent, numbers.count - sent)
    }

    static func address(_ address: NIOCore.SocketAddress) -> PacketCapture.SocketAddress? {
        guard let port = address.port, let text = address.ipAddress, let ip = IPAddress(parsing: text) else {
            return nil
        }
        return PacketCapture.SocketAddress(address: ip, port: UInt16(truncatingIfNeeded: port))
    }

    static func nioAddress(_ address: PacketCapture.SocketAddress) -> NIOCore.SocketAddress? {
        try? NIOCore.SocketAddress(ipAddress: address.address.description, port: Int(address.port))
    }
}
