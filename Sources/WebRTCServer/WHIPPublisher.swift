@_spi(SansIO) import DTLS
@_spi(SansIO) import ICE
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import PacketCapture
import RTP
@_spi(SansIO) import RTPTransport
import RTSPServer
import Synchronization
@_spi(SansIO) import WebRTC

/// Publishes a source into a WebRTC service over WHIP (RFC 9725): what a camera pushed into an SFU (LiveKit's
/// ingress, a cloud service) needs. It posts an offer of the source's tracks as they are (H.264, H.265, Opus,
/// G.711, G.722: ``WHIPOffer``), checks the endpoint's candidates as ICE's controlling agent, keys SRTP through DTLS
/// in the role the answer gives, and sends the source's packets (from its latest keyframe) on the same outgoing
/// road as RTSP and WebRTC viewers, answering the endpoint's NACKs and passing its keyframe requests to the source.
///
/// ```swift
/// let publisher = WHIPPublisher(source: source, endpoint: "http://sfu.local:8080/whip/camera")
/// try await publisher.start()   // returns once media flows
/// ...
/// await publisher.stop()        // DELETE at the endpoint
/// ```
public final class WHIPPublisher: Sendable {
    public struct Configuration: Sendable {
        /// The WHIP endpoint (`http://host[:port]/path`).
        public var endpoint: String
        /// Sent as `Authorization: Bearer` when set (RFC 9725 section 4.5).
        public var bearerToken: String?
        /// The addresses our candidates name; nil: this machine's IPv4 addresses.
        public var candidateAddresses: [String]?
        /// How long ICE and DTLS have to finish after the answer.
        public var setupTimeout: Duration = .seconds(15)

        public init(endpoint: String, bearerToken: String? = nil) {
            self.endpoint = endpoint
            self.bearerToken = bearerToken
        }
    }

    public let source: MediaSource
    public let configuration: Configuration
    private let group: any EventLoopGroup
    private let logger: Logger
    private let running = Mutex<(channel: any Channel, session: WHIPHTTPClient.Endpoint?)?>(nil)

    public init(
        source: MediaSource, configuration: Configuration, group: (any EventLoopGroup)? = nil, logger: Logger? = nil
    ) {
        self.source = source
        self.configuration = configuration
        self.group = group ?? MultiThreadedEventLoopGroup.singleton
        self.logger = logger ?? Logger(label: "swift-rtp.whip", factory: { _ in SwiftLogNoOpLogHandler() })
    }

    public convenience init(source: MediaSource, endpoint: String, bearerToken: String? = nil) {
        self.init(source: source, configuration: Configuration(endpoint: endpoint, bearerToken: bearerToken))
    }

    /// Posts the offer and returns once media flows (ICE checked, DTLS keyed).
    /// - Throws: ``WebRTCPublishError`` saying what failed: the endpoint's URL, its refusal (status and body), an
    ///   answer without what WebRTC needs, ICE or DTLS.
    public func start() async throws {
        guard let endpoint = WHIPHTTPClient.Endpoint(configuration.endpoint) else {
            throw WebRTCPublishError("\(configuration.endpoint.prefix(200)) is not an http:// URL with a host")
        }
        let identity: DTLSIdentity
        do { identity = try DTLSIdentity() } catch { throw WebRTCPublishError("no DTLS certificate: \(error)") }
        let ready = group.next().makePromise(of: Void.self)
        let connection = PublisherConnection(source: source, ready: ready, logger: logger)
        let channel = try await DatagramBootstrap(group: group)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelInitializer { channel in channel.pipeline.addHandler(connection) }
            .bind(host: "0.0.0.0", port: 0).get()
        let port = UInt16(channel.localAddress?.port ?? 0)
        let local = ICELiteAgent.Credentials.random()
        let offer: WHIPOffer
        do {
            offer = try WHIPOffer(
                formats: source.formats, iceUsernameFragment: local.usernameFragment, icePassword: local.password,
                fingerprint: identity.sdpFingerprint,
                candidates: WebRTCServer.candidateAddresses(configuration.candidateAddresses, bound: "0.0.0.0").map {
                    .init(address: $0, port: port)
                })
        } catch {
            try? await channel.close()
            throw WebRTCPublishError("the source cannot be offered: \(error.reason)")
        }
        for (track, reason) in offer.refusals.sorted(by: { $0.key < $1.key }) {
            logger.notice("track \(track) is not published: \(reason)")
        }
        let client = WHIPHTTPClient(group: group)
        var headers = [("Content-Type", "application/sdp")]
        if let token = configuration.bearerToken { headers.append(("Authorization", "Bearer \(token)")) }
        let response: WHIPHTTPClient.Response
        do {
            response = try await client.request(.POST, endpoint, headers: headers, body: offer.text)
        } catch {
            try? await channel.close()
            throw error
        }
        guard response.status == 201 else {
            try? await channel.close()
            throw WebRTCPublishError(
                "the endpoint refused the offer: \(response.status) \(response.body.prefix(300))")
        }
        let session = response.headers.first(name: "Location").flatMap(endpoint.resolving)
        running.withLock { $0 = (channel, session) }
        switch Self.peer(offer: offer, answer: response.body, local: local, identity: identity) {
        case .success(let peer):
            peer.setupTimeout = configuration.setupTimeout
            let started = PeerBox(peer)
            channel.eventLoop.execute { connection.start(started.peer) }
        case .failure(let error):
            await stop()
            throw WebRTCPublishError(error.reason)
        }
        do {
            try await ready.futureResult.get()
        } catch {
            await stop()
            throw error
        }
    }

    /// Stops sending and ends the session at the endpoint (DELETE on its `Location`).
    public func stop() async {
        guard
            let (channel, session) = running.withLock({ state in
                defer { state = nil }; return state
            })
        else { return }
        try? await channel.close()
        guard let session else { return }
        var headers: [(String, String)] = []
        if let token = configuration.bearerToken { headers.append(("Authorization", "Bearer \(token)")) }
        _ = try? await WHIPHTTPClient(group: group).request(.DELETE, session, headers: headers)
    }

    /// The peer for the endpoint's `answer`, or why it cannot be made.
    private static func peer(
        offer: WHIPOffer, answer: String, local: ICELiteAgent.Credentials, identity: DTLSIdentity
    ) -> Result<WHIPPeer, WebRTCError> {
        do throws(WebRTCError) {
            var answer = try WHIPAnswer(answer)
            // Our socket is IPv4: its candidates only.
            answer.candidates = answer.candidates.filter { if case .v4 = $0.address { true } else { false } }
            return .success(
                try WHIPPeer(offer: offer, answer: answer, local: local, identity: identity, now: .now()))
        } catch {
            return .failure(error)
        }
    }

    /// A peer handed to its socket's event loop, which alone uses it from then on.
    private struct PeerBox: @unchecked Sendable {
        let peer: WHIPPeer
        init(_ peer: WHIPPeer) { self.peer = peer }
    }

}

/// The publisher's socket: datagrams to its peer, the peer's actions carried out, its timer, the source subscribed
/// once keyed.
final class PublisherConnection: ChannelInboundHandler, @unchecked Sendable {  // on its channel's event loop
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let source: MediaSource
    private let logger: Logger
    private var ready: EventLoopPromise<Void>?
    private var channel: (any Channel)?
    private var peer: WHIPPeer?
    private var subscriber: Subscriber?
    private let history = SentPacketHistory()
    private var wakeUp = WakeUpTimer()

    init(source: MediaSource, ready: EventLoopPromise<Void>, logger: Logger) {
        self.source = source
        self.ready = ready
        self.logger = logger
    }

    func channelActive(context: ChannelHandlerContext) {
        channel = context.channel
        context.fireChannelActive()
    }

    /// Starts the checks.
    func start(_ peer: WHIPPeer) {
        self.peer = peer
        carryOut(peer.start(now: .now()))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard let peer, let from = WebRTCViewers.address(envelope.remoteAddress) else { return }
        var buffer = envelope.data
        guard let bytes = buffer.readBytes(length: buffer.readableBytes) else { return }
        carryOut(peer.receive(bytes, from: from, now: .now()))
    }

    func channelInactive(context: ChannelHandlerContext) {
        end("the publisher stopped")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        end("its socket failed: \(error)")
    }

    private func carryOut(_ actions: [WHIPPeer.Action]) {
        guard let channel, let peer else { return }
        for action in actions {
            switch action {
            case .send(let bytes, let to):
                WebRTCViewers.send(bytes, to: to, on: channel)
            case .ready:
                subscribe(peer, channel: channel)
            case .closed(let reason):
                end(reason)
            case .retransmit(let ssrc, let sequenceNumbers):
                guard let address = peer.mediaAddress else { continue }
                _ = WebRTCViewers.resend(sequenceNumbers, ssrc: ssrc, from: history, to: address, on: channel)
            case .keyframeRequested(let ssrc):
                if let track = peer.offer.tracks.first(where: { $0.ssrc == ssrc }) {
                    source.requestKeyframe(track: track.sourceTrack)
                }
            case .receiverReport, .talk:
                continue
            }
        }
        armWakeUp()
    }

    /// The source's tracks, each through its protected writer, in the payload types the endpoint took.
    private func subscribe(_ peer: WHIPPeer, channel: any Channel) {
        guard subscriber == nil, let protection = peer.protection,
            let address = peer.mediaAddress.flatMap(WebRTCViewers.nioAddress)
        else { return }
        let shared = ProtectedDatagramWriter.Protection(protection)
        var writers: [Int: TrackWriter] = [:]
        for track in peer.offer.tracks {
            let section =
                peer.answer.sections.indices.contains(track.section) ? peer.answer.sections[track.section] : nil
            guard section?.isAccepted ?? false else { continue }
            writers[track.sourceTrack] = .protected(
                ProtectedDatagramWriter(
                    socket: channel, address: address, payloadType: section?.payloadType ?? track.payloadType,
                    ssrc: track.ssrc, sharing: shared, history: history))
        }
        let formats = source.formats
        let subscriber = Subscriber(
            writers: writers, videoTracks: Set(formats.indices.filter { formats[$0].kind == .video }))
        guard source.subscribe(subscriber, fromLatestKeyframe: true, starting: { _ in }) else {
            return end("the source has ended")
        }
        self.subscriber = subscriber
        logger.info("publishing", metadata: ["endpoint": "\(address)"])
        ready?.succeed()
        ready = nil
    }

    private func end(_ reason: String) {
        if let subscriber { source.unsubscribe(subscriber) }
        subscriber = nil
        ready?.fail(WebRTCPublishError(reason))
        ready = nil
        if let peer, !peer.isClosed { logger.info("publishing ended: \(reason)") }
        peer = nil
        wakeUp.cancel()
    }

    private func armWakeUp() {
        guard let channel, let peer else { return }
        wakeUp.set(at: peer.nextWakeUp, on: channel.eventLoop) { [self] in
            wakeUp.fired()
            guard let peer = self.peer else { return }
            carryOut(peer.wake(now: .now()))
        }
    }
}
