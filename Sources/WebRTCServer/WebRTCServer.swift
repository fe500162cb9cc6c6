@_spi(SansIO) import DTLS
@_spi(SansIO) import ICE
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
@_spi(SansIO) import RTPTransport
import RTP
@_spi(SansIO) import RTSP
import RTSPServer
import Synchronization
@_spi(SansIO) import WebRTC

/// Serves sources to browsers over WebRTC, without re-encoding: WHEP (RFC 9725) on an HTTP port of its own, every
/// viewer's ICE-lite, DTLS-SRTP and media on one UDP port. The same ``RTSPServer/MediaSource`` can be mounted here
/// and on an ``RTSPServer`` at once: it packetizes once, and each WebRTC viewer gets its packets in its own payload
/// type, SSRC and SRTP keys.
///
/// ```swift
/// let source = try MediaSource(formats: camera.tracks.map(\.format))
/// let webRTC = try WebRTCServer(configuration: .init(httpPort: 8889))
/// webRTC.mount(source, at: "/camera")      // http://this-host:8889/camera/ plays it; /camera/whep is WHEP
/// try await webRTC.start()
/// ```
///
/// Bounded: ``Configuration/maxViewers`` viewers, of which ``Configuration/maxPendingViewers`` not yet keyed (each
/// such is closed ``Configuration/viewerSetupTimeout`` after its offer); offers of at most
/// ``Configuration/maxOfferBytes``.
public final class WebRTCServer: Sendable {
    public struct Configuration: Sendable {
        /// The HTTP port of the WHEP endpoint and the player page (0: any free one).
        public var httpPort: Int
        /// The UDP port every viewer's media and checks share (0: any free one).
        public var udpPort: Int
        /// The address both are bound to.
        public var host: String
        /// The addresses announced as host candidates; nil: each IPv4 address of this machine's interfaces (or
        /// `host` when it is one address).
        public var candidateAddresses: [String]?
        /// When set, POST and DELETE ask for `Authorization: Bearer` with it.
        public var bearerToken: String?
        /// Viewers at once, over all paths.
        public var maxViewers = 64
        /// Viewers whose ICE and DTLS are not done yet (each holds a DTLS context until its setup timeout).
        public var maxPendingViewers = 16
        /// The largest offer read; a larger one is 413.
        public var maxOfferBytes = 64 * 1024
        /// HTTP connections at once; more are closed as they come.
        public var maxHTTPConnections = 256
        /// How long an HTTP connection may send nothing (a request that does not come, or comes a byte at a time,
        /// and an idle keep-alive) before it is closed.
        public var httpIdleTimeout: Duration = .seconds(10)
        /// How long a viewer has, from its offer, to be checked by ICE and keyed by DTLS before it is closed.
        public var viewerSetupTimeout: Duration = .seconds(15)
        /// Tests' loss: every Nth packet to each viewer is not sent (its NACK gets it again).
        package var dropsEveryNthPacket: Int?

        public init(httpPort: Int = 8889, udpPort: Int = 0, host: String = "0.0.0.0") {
            self.httpPort = httpPort
            self.udpPort = udpPort
            self.host = host
        }
    }

    public let configuration: Configuration
    let logger: Logger
    private let group: any EventLoopGroup
    private let identity: DTLSIdentity
    /// Each mounted source, with its audio re-encoded to Opus once a viewer needs that, and where its viewers'
    /// voices go.
    private let mounts = Mutex<[String: Mount]>([:])

    struct Mount {
        var source: MediaSource
        var transcoder: OpusTranscoder?
        var talkback: Talkback?
    }
    /// HTTP connections open now.
    private let httpConnections: ConnectionBudget
    /// Every 5 s, each mount's sender reports (and its transcoder's) to its viewers.
    private let reports = Mutex<RepeatedTask?>(nil)
    private let running = Mutex<
        (http: any Channel, udp: any Channel, viewers: WebRTCViewers, candidates: [WebRTCAnswer.Candidate])?
    >(nil)

    /// A server with a new DTLS identity (its certificate made now).
    public init(
        configuration: Configuration = Configuration(), group: (any EventLoopGroup)? = nil, logger: Logger? = nil
    ) throws {
        self.configuration = configuration
        httpConnections = ConnectionBudget(maxConnections: configuration.maxHTTPConnections)
        self.group = group ?? MultiThreadedEventLoopGroup.singleton
        self.logger = logger ?? Logger(label: "swift-rtp.webrtc", factory: { _ in SwiftLogNoOpLogHandler() })
        identity = try DTLSIdentity()
    }

    /// Serves `source` at `path`, replacing what was there; with `talkback`, its viewers may talk (two-way audio:
    /// ``Talkback``).
    public func mount(_ source: MediaSource, at path: String, talkback: Talkback? = nil) {
        mounts.withLock { $0[Self.normalized(path)] = Mount(source: source, talkback: talkback) }
    }

    /// Stops offering what is at `path` (viewers playing it go on until they leave).
    public func unmount(_ path: String) {
        _ = mounts.withLock { $0.removeValue(forKey: Self.normalized(path)) }
    }

    func hasSource(at path: String) -> Bool { mounts.withLock { $0[Self.normalized(path)] != nil } }

    /// The HTTP port (nil before ``start()``).
    public var httpPort: Int? { running.withLock { $0?.http.localAddress?.port } }
    /// The UDP port (nil before ``start()``).
    public var udpPort: Int? { running.withLock { $0?.udp.localAddress?.port } }

    /// Starts listening (HTTP and UDP). Throws when an address cannot be bound.
    public func start() async throws {
        let viewers = WebRTCViewers(logger: logger)
        let udp = try await DatagramBootstrap(group: group)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(viewers) }
            }
            .bind(host: configuration.host, port: configuration.udpPort).get()
        let http = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    // A budget per connection: how many at once, and how long one may say nothing.
                    guard httpConnections.admit() == nil else { throw ChannelError.inputClosed }
                    channel.closeFuture.whenComplete { [self] _ in httpConnections.release() }
                    let idle = TimeAmount.nanoseconds(configuration.httpIdleTimeout.nanosecondCount)
                    try channel.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: idle))
                    try channel.pipeline.syncOperations.addHandler(IdleCloser())
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(WHEPHandler(server: self))
                }
            }
            .bind(host: configuration.host, port: configuration.httpPort).get()
        let port = UInt16(truncatingIfNeeded: udp.localAddress?.port ?? 0)
        let candidates = Self.candidateAddresses(configuration.candidateAddresses, bound: configuration.host).map {
            WebRTCAnswer.Candidate(address: $0, port: port)
        }
        running.withLock { $0 = (http, udp, viewers, candidates) }
        let task = udp.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(5)) { [self] _ in
            let now = WallClockTime.now()
            for mount in mounts.withLock({ Array($0.values) }) {
                mount.source.sendReports(now: now, canonicalName: "swift-rtp")
                mount.transcoder?.source.sendReports(now: now, canonicalName: "swift-rtp")
            }
        }
        reports.withLock { $0 = task }
        logger.info("serving WebRTC", metadata: ["http": "\(http.localAddress?.port ?? 0)", "udp": "\(port)"])
    }

    /// Stops listening; every viewer is ended.
    public func stop() async {
        reports.withLock { $0?.cancel() }
        guard
            let (http, udp, viewers, _) = running.withLock({ state in
                defer { state = nil }; return state
            })
        else { return }
        try? await udp.eventLoop.submit { viewers.removeAll() }.get()
        try? await http.close()
        try? await udp.close()
    }

    /// An offer for `path`: answered, and its viewer added, or refused with a status and the reason.
    func admit(offer text: String, at path: String) -> EventLoopFuture<(String, String)> {
        guard let (_, udp, viewers, candidates) = running.withLock({ $0 }) else {
            return group.next().makeFailedFuture(
                WHEPRefusal(status: .serviceUnavailable, reason: "the server is not running"))
        }
        let key = Self.normalized(path)
        guard let (source, talkback) = mounts.withLock({ $0[key].map { ($0.source, $0.talkback) } }) else {
            return udp.eventLoop.makeFailedFuture(
                WHEPRefusal(status: .notFound, reason: "nothing is mounted at \(path.prefix(200))"))
        }
        guard !source.isFinished else {
            // Answered, such a viewer would be keyed and sent nothing.
            return udp.eventLoop.makeFailedFuture(
                WHEPRefusal(status: .serviceUnavailable, reason: "the source at \(path.prefix(200)) has ended"))
        }
        guard source.cryptoAttribute == nil else {
            return udp.eventLoop.makeFailedFuture(
                WHEPRefusal(
                    status: .notAcceptable,
                    reason: "this source is SRTP with its own key; WebRTC viewers take a plain source"))
        }
        let identity = self.identity
        let configuration = self.configuration
        return udp.eventLoop.submit {
            guard viewers.count < configuration.maxViewers, viewers.pendingCount < configuration.maxPendingViewers
            else {
                throw WHEPRefusal(status: .serviceUnavailable, reason: "too many viewers; try again later")
            }
            let local = ICELiteAgent.Credentials.random()
            do {
                let offer = try WebRTCOffer(text)
                let answer = try WebRTCAnswer(
                    offer: offer, formats: source.formats, iceUsernameFragment: local.usernameFragment,
                    icePassword: local.password, fingerprint: identity.sdpFingerprint, candidates: candidates,
                    talkback: talkback?.format)
                if let refusal = answer.talkRefusal { self.logger.info("a WebRTC viewer cannot talk: \(refusal)") }
                let peer = try WebRTCPeer(offer: offer, answer: answer, local: local, identity: identity, now: .now())
                peer.setupTimeout = configuration.viewerSetupTimeout
                let transcoder = try answer.tracks.first(where: \.transcodedToOpus).map { track in
                    try self.transcoder(at: key, of: source, track: track.sourceTrack)
                }
                let id = String(UInt64.random(in: 1...UInt64.max), radix: 16)
                let history = SentPacketHistory(droppingEvery: configuration.dropsEveryNthPacket)
                viewers.add(
                    WebRTCViewers.Viewer(
                        id: id, path: key, peer: peer, source: source, transcoder: transcoder,
                        talkback: answer.talk == nil ? nil : talkback, history: history))
                return (id, answer.text)
            } catch let refusal as WHEPRefusal {
                throw refusal
            } catch {
                throw WHEPRefusal(status: .badRequest, reason: (error as? WebRTCError)?.reason ?? "\(error)")
            }
        }
    }

    /// The mount's transcoder of `track` to Opus, made the first time a viewer needs it.
    private func transcoder(at path: String, of source: MediaSource, track: Int) throws -> OpusTranscoder {
        if let made = mounts.withLock({ $0[path]?.transcoder }), made.track == track { return made }
        let made: OpusTranscoder
        do {
            made = try OpusTranscoder(of: source, track: track)
        } catch {
            throw WHEPRefusal(
                status: .serviceUnavailable, reason: "the source's audio cannot be re-encoded to Opus: \(error)")
        }
        return mounts.withLock { mounts in
            if let raced = mounts[path]?.transcoder { return raced }
            mounts[path]?.transcoder = made
            return made
        }
    }

    /// Each viewer's figures: whether it plays, what it reported (loss, round trip) and asked for (packets again,
    /// keyframes), and what was sent again.
    public func viewerStatistics() async -> [WebRTCViewerStatistics] {
        guard let (_, udp, viewers, _) = running.withLock({ $0 }) else { return [] }
        return (try? await udp.eventLoop.submit { viewers.statistics }.get()) ?? []
    }

    /// Ends the viewer `id`; whether there was one.
    func end(viewer id: String) -> EventLoopFuture<Bool> {
        guard let (_, udp, viewers, _) = running.withLock({ $0 }) else {
            return group.next().makeSucceededFuture(false)
        }
        return udp.eventLoop.submit { viewers.remove(id: id, reason: "its WHEP resource was deleted") }
    }

    /// A path as the RTSP server keys its mounts: a leading `/`, no trailing one.
    static func normalized(_ path: String) -> String { RTSPServerStateMachine.Presentation.normalized(path) }

    /// The addresses host candidates name: those `given`, else the one bound to, else (bound to every interface)
    /// each IPv4 address of this machine.
    static func candidateAddresses(_ given: [String]?, bound host: String) -> [String] {
        if let given { return given }
        if host != "0.0.0.0" && host != "::" { return [host] }
        let devices = (try? System.enumerateDevices()) ?? []
        var addresses: [String] = []
        for device in devices {
            guard case .v4 = device.address, let ip = device.address?.ipAddress, !addresses.contains(ip) else {
                continue
            }
            addresses.append(ip)
        }
        // Loopback last: a browser on another machine cannot use it, one on this machine can.
        return addresses.sorted { ($0.hasPrefix("127.") ? 1 : 0) < ($1.hasPrefix("127.") ? 1 : 0) }
    }
}

/// Closes a connection that said nothing for its idle timeout.
final class IdleCloser: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read else {
            return context.fireUserInboundEventTriggered(event)
        }
        context.close(promise: nil)
    }
}
