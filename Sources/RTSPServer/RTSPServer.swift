import CoreMetrics
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import MP4
import RTP
@_spi(SansIO) import RTPTransport
@_spi(SansIO) import RTSP
import SDP
import Synchronization

/// An RTSP server on SwiftNIO: it serves the ``MediaSource``s mounted on it to any number of clients, over TCP
/// interleaved, UDP unicast and UDP multicast (a source mounted with a group, ``mount(_:at:multicast:)``), each
/// connection run by an ``RTSPServerStateMachine``.
///
/// ```swift
/// let server = RTSPServer(configuration: .init(port: 8554))
/// server.mount(source, at: "/camera")
/// try await server.start()          // rtsp://host:8554/camera
/// ...
/// await server.stop()
/// ```
///
/// Every 5 s it sends each playing client its tracks' sender reports (with the NTP time of their RTP time);
/// sessions that hear nothing for the session timeout end; a client that stops reading is skipped (see
/// ``MediaSource``) with at most ``Configuration/writeBufferLimit`` bytes queued for it.
///
/// Every connection has a budget, so that no client can grow the server or hold it: while
/// ``Configuration/writeBufferLimit`` bytes wait to be written to it, its requests wait unread (a client that
/// sends and never reads fills its own socket, not the server's memory), and it is closed once nothing has drained
/// for ``Configuration/stalledConnectionTimeout``; a request must arrive whole, head and body, within
/// ``Configuration/requestTimeout`` of its first byte, its body at most ``Configuration/maxRequestBodyBytes``; a
/// connection without a session that sends no whole request for the session timeout is closed; an address holds at
/// most ``Configuration/maxConnectionsPerAddress`` connections; a connection at most
/// ``Configuration/maxSessionsPerConnection`` sessions, one per path; wrong answers to the authentication challenge
/// are slowed per address and end the connection after ``Configuration/maxAuthenticationFailures``.
public final class RTSPServer: Sendable {
    /// How a server listens and serves.
    public struct Configuration: Sendable {
        /// The address to listen on (`0.0.0.0`: every IPv4 interface; `::` IPv6).
        public var host = "0.0.0.0"
        /// The TCP port for RTSP; 0 takes a free one (``port`` says which).
        public var port = 8554
        /// Whether it sends over UDP too (from two UDP ports it takes, and to the multicast groups of sources mounted
        /// with one), or TCP interleaved only.
        public var servesUDP = true
        /// The IPv4 address of the interface multicast groups are sent out of (`127.0.0.1` keeps them on this
        /// host); nil: the interface the system's routes choose for each group.
        public var multicastInterface: String?
        /// How many routers what it sends to multicast groups may cross. Default 1: the local network only.
        public var multicastTTL: UInt8 = 1
        /// Users and schemes to authenticate; nil serves everyone.
        public var authentication: ServerAuthentication?
        /// Who may play what, asked at each DESCRIBE, SETUP and PLAY with the path and the user
        /// ``authentication`` let in (nil when the server has none): false answers 403 Forbidden, before the
        /// path is looked up (one who may not play it does not learn whether it is mounted). Nil: everyone let in
        /// plays every path.
        public var access: (@Sendable (_ user: String?, _ path: String) -> Bool)?
        /// How long a session lives without a request or RTCP from its client.
        public var sessionTimeout: Duration = .seconds(60)
        /// Bytes queued for one client's connection before its media is skipped (to its next keyframe).
        public var writeBufferLimit = 2 << 20
        /// Sender reports' interval.
        public var reportInterval: Duration = .seconds(5)
        /// The `Server` header and the RTCP CNAME.
        public var name = "swift-rtp"
        /// The most connections at once.
        public var maxConnections = 1024
        /// The most connections from one IP address at once (nil: no bound). Default 64: a NAT in front of many
        /// viewers, or a recorder of many paths, may need more.
        public var maxConnectionsPerAddress: Int? = 64
        /// How long a request may take to arrive whole, from its first byte. Default 10 s.
        public var requestTimeout: Duration = .seconds(10)
        /// The largest request body (SET_PARAMETER's and GET_PARAMETER's are small). Default 16 KiB; a request's
        /// header block is at most 16 KiB too.
        public var maxRequestBodyBytes = 16 << 10
        /// How long a connection may go without its queued bytes draining (its client not reading) before it is
        /// closed. Default 30 s.
        public var stalledConnectionTimeout: Duration = .seconds(30)
        /// Sessions one connection may hold (one per path). Default 4.
        public var maxSessionsPerConnection = 4
        /// Wrong answers to the authentication challenge one connection may give before it is closed. Default 10.
        public var maxAuthenticationFailures = 10
        /// RTSPS (RFC 7826 section 19): TLS on every connection with this certificate and key, for `rtsps://` URLs
        /// (SRTP, when a source has keys, goes on inside it as over plain RTSP); nil serves plain RTSP.
        public var tls: TLS?
        /// Where the server's metrics go (see the `rtsp_server_` metrics below): nil sends them to
        /// `MetricsSystem.factory` as it is when the server is made (the backend the process bootstrapped, else
        /// none).
        public var metricsFactory: (any MetricsFactory)?
        /// When the server runs as a service (``run()``) and shuts down: how long its viewers have, once told the
        /// stream is over (RTCP BYE), to tear their sessions down before it stops. Default 1 s.
        public var shutdownGrace: Duration = .seconds(1)

        /// The server's certificate chain and private key, PEM files.
        public struct TLS: Sendable, Hashable {
            public var certificateFile: String
            public var privateKeyFile: String

            public init(certificateFile: String, privateKeyFile: String) {
                self.certificateFile = certificateFile
                self.privateKeyFile = privateKeyFile
            }
        }

        public init(host: String = "0.0.0.0", port: Int = 8554) {
            self.host = host
            self.port = port
        }
    }

    public let configuration: Configuration
    let logger: Logger
    private let group: any EventLoopGroup
    let mounts = Mutex<[String: MediaSource]>([:])
    private let recordings = Mutex<[String: RecordingTimeline]>([:])
    private let directories = Mutex<[String: RecordingDirectory]>([:])
    private let multicastGroups = Mutex<[String: MulticastGroup]>([:])
    private let talkbacks = Mutex<[String: Talkback]>([:])
    /// The viewers that talk over UDP, by where their voice comes from.
    let udpTalkers = UDPTalkers()
    private let running = Mutex<Running?>(nil)
    /// Connections at once, in all and per client address.
    private let connections: ConnectionBudget
    /// RTSP sessions on all connections: set up and not yet torn down, timed out or closed with their connection.
    private let sessions = Mutex(0)
    /// Wrong answers to the challenge, per client address: how long to hold the next.
    let authenticationThrottle = Mutex(AuthenticationThrottle())
    /// Viewers, bytes and skips per path, wrong answers to the challenge.
    let metrics: ServerMetrics
    let viewerEvents = ServerEvents()

    struct Running: @unchecked Sendable {  // channels and a scheduled task, each Sendable; the struct holds them
        let listener: any Channel
        let udp: (rtp: any Channel, rtcp: any Channel)?
        let multicast: MulticastFanOut?
        let reports: RepeatedTask
    }

    /// A server on `group` (`MultiThreadedEventLoopGroup.singleton`, the process's shared event loops, when nil),
    /// logging to `logger` (nowhere when nil).
    public init(
        configuration: Configuration = Configuration(), group: (any EventLoopGroup)? = nil, logger: Logger? = nil
    ) {
        self.configuration = configuration
        metrics = ServerMetrics(factory: configuration.metricsFactory ?? MetricsSystem.factory)
        connections = ConnectionBudget(
            maxConnections: configuration.maxConnections, maxPerAddress: configuration.maxConnectionsPerAddress)
        // The process's shared event loops, as the client's, WebRTC's and the transports' are: a server costs no
        // threads of its own, and a process with many (a server per camera) does not grow a thread pool per server.
        self.group = group ?? MultiThreadedEventLoopGroup.singleton
        self.logger = logger ?? Logger(label: "swift-rtp.server", factory: { _ in SwiftLogNoOpLogHandler() })
    }

    /// Serves `source` at `path` (`/camera`), replacing what was there, and returns the path as served (with a
    /// leading `/`, without a trailing one: `camera/` is served at `/camera`).
    @discardableResult
    public func mount(_ source: MediaSource, at path: String) -> String {
        let path = RTSPServerStateMachine.Presentation.normalized(path)
        _ = recordings.withLock { $0.removeValue(forKey: path) }
        _ = multicastGroups.withLock { $0.removeValue(forKey: path) }
        _ = talkbacks.withLock { $0.removeValue(forKey: path) }
        mounts.withLock { $0[path] = source }
        return path
    }

    /// Serves `source` at `path` as ``mount(_:at:)-(MediaSource,_)`` does, and:
    /// - with `group`, to that multicast group for the clients that ask for multicast (`Transport:
    ///   RTP/AVP;multicast`): each packet is sent once to the group, for all of them, from when the first plays until
    ///   the last leaves; the group's address and ports are in their SETUP answers, with
    ///   ``Configuration/multicastTTL``. Give each path a group (or ports) of its own.
    /// - with `talkback`, to clients that ask for the ONVIF audio backchannel (`Require:
    ///   www.onvif.org/ver20/backchannel`) with one more track, in the talkback's format, that they send on (TCP
    ///   interleaved or UDP) while they play: what they send goes to `talkback`, one talker at a time.
    ///
    /// ```swift
    /// server.mount(source, at: "/camera", multicast: MulticastGroup(address: "239.0.0.1", port: 5004)!)
    /// server.mount(relayed, at: "/door", talkback: try Talkback(format: backchannel.format) { backchannel.send($0) })
    /// ```
    @discardableResult
    public func mount(
        _ source: MediaSource, at path: String, multicast group: MulticastGroup? = nil, talkback: Talkback? = nil
    ) -> String {
        let path = mount(source, at: path)
        if let group { multicastGroups.withLock { $0[path] = group } }
        if let talkback { talkbacks.withLock { $0[path] = talkback } }
        return path
    }

    /// Serves the recording `reader` opened at `path` on demand, replacing what was there, and returns the path as
    /// served. Each viewer plays it alone: from where its PLAY's `Range` asks (`npt=`, or `clock=` through the
    /// recording's wall clock), starting at the keyframe at or before that time, as fast as its `Scale` asks
    /// (forward, up to 64), each pause and new PLAY a seek; DESCRIBE gives its length (`a=range`). Its H.264, H.265,
    /// AAC, Opus and G.711 tracks are served.
    ///
    /// - Throws: ``MP4Error`` `.unsupportedCodec` when the file has no track the server can send.
    @discardableResult
    public func mount(_ reader: MP4FileReader, at path: String) throws(MP4Error) -> String {
        guard let playback = RecordingPlayback(reader), let timeline = RecordingTimeline([playback]) else {
            throw MP4Error(
                .unsupportedCodec,
                "the recording has no H.264, H.265, AAC, Opus or G.711 track with samples (its tracks: "
                    + reader.index.tracks.map(\.codec).joined(separator: ", ") + ")")
        }
        let path = RTSPServerStateMachine.Presentation.normalized(path)
        mounts.withLock { _ = $0.removeValue(forKey: path) }
        recordings.withLock { $0[path] = timeline }
        return path
    }

    /// Serves the recordings in `directory` at `path`, as ``mount(_:at:)-(MP4FileReader,_)`` serves one:
    /// `PATH/NAME` (or `PATH/NAME.mp4`) plays `DIRECTORY/NAME.mp4`. Only plain names inside the directory are
    /// served (no `/`, no leading `.`, no link out of it): anything else is 404 Not Found. Each file is indexed when
    /// first asked for, and again once it has changed (a recording still being written). Returns the path.
    ///
    /// - Throws: ``MP4Error`` `.readFailed` when `directory` is not a directory.
    @discardableResult
    public func mount(recordingsIn directory: String, at path: String) throws(MP4Error) -> String {
        guard let recordings = RecordingDirectory(directory) else {
            throw MP4Error(.readFailed, "\(directory) is not a directory this process can read")
        }
        let path = RTSPServerStateMachine.Presentation.normalized(path)
        directories.withLock { $0[path] = recordings }
        return path
    }

    /// Stops offering what is at `path` (clients playing it go on until they leave).
    public func unmount(_ path: String) {
        let path = RTSPServerStateMachine.Presentation.normalized(path)
        _ = mounts.withLock { $0.removeValue(forKey: path) }
        _ = recordings.withLock { $0.removeValue(forKey: path) }
        _ = directories.withLock { $0.removeValue(forKey: path) }
        _ = multicastGroups.withLock { $0.removeValue(forKey: path) }
        _ = talkbacks.withLock { $0.removeValue(forKey: path) }
    }

    /// What is mounted at `path`, as the state machine offers it.
    func presentation(at path: String) -> RTSPServerStateMachine.Presentation? {
        if let recording = recording(at: path) {
            return .init(
                path: path, formats: recording.formats, duration: recording.duration,
                recordedUntil: recording.recordedUntil)
        }
        return source(at: path).map {
            .init(
                path: path, formats: $0.formats, crypto: $0.cryptoAttribute,
                multicast: multicastGroup(at: path), backchannel: talkback(at: path)?.format)
        }
    }

    /// Where the voices of the viewers of the source at `path` go.
    func talkback(at path: String) -> Talkback? { talkbacks.withLock { $0[path] } }

    /// The group the source at `path` is sent to for its multicast viewers.
    func multicastGroup(at path: String) -> MulticastGroup? { multicastGroups.withLock { $0[path] } }

    /// The recording mounted at `path`, or the one a mounted directory holds under that name.
    func recording(at path: String) -> RecordingTimeline? {
        if let recording = recordings.withLock({ $0[path] }) { return recording }
        guard let slash = path.lastIndex(of: "/") else { return nil }
        let parent = slash == path.startIndex ? "/" : String(path[..<slash])
        return directories.withLock { $0[parent] }?.recording(named: path[path.index(after: slash)...])
    }

    func source(at path: String) -> MediaSource? { mounts.withLock { $0[path] } }

    /// The RTSP sessions its clients hold: set up and not yet torn down, expired or closed with their connection.
    /// A paused session counts (its client may play again or tear down), though it takes nothing from its source:
    /// wait for this to reach zero, not for a source's ``MediaSource/subscriberCount``, before stopping a server
    /// whose clients should leave cleanly (gst-launch's rtspsrc pauses before its TEARDOWN).
    public var sessionCount: Int { sessions.withLock { $0 } }

    /// A connection's sessions went from `old` to `new`.
    func countSessions(from old: Int, to new: Int) {
        guard old != new else { return }
        sessions.withLock { $0 += new - old }
    }

    /// The TCP port it listens on (nil before ``start()``).
    public var port: Int? { running.withLock { $0?.listener.localAddress?.port } }

    /// Starts listening. Throws when the address cannot be bound (in use, not this machine's), or the TLS
    /// certificate or key cannot be read, or multicast cannot be sent from ``Configuration/multicastInterface``
    /// (``RTSPServerError``).
    public func start() async throws {
        let tls = try configuration.tls.map { tls throws(RTSPServerError) in try Self.context(tls) }
        let udp = configuration.servesUDP ? try await bindUDPPair() : nil
        let multicast: MulticastFanOut?
        do {
            multicast = configuration.servesUDP ? try await bindMulticast() : nil
        } catch {
            try? await udp?.rtp.close()
            try? await udp?.rtcp.close()
            throw error
        }
        let listener = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(
                .writeBufferWaterMark,
                value: .init(low: configuration.writeBufferLimit / 2, high: configuration.writeBufferLimit)
            )
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    let address = Self.addressKey(channel.remoteAddress)
                    guard admit(address) else { throw ChannelError.inputClosed }
                    do {
                        if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                        try channel.pipeline.syncOperations.addHandler(
                            ServerConnectionHandler(server: self, udp: udp, multicast: multicast, address: address))
                    } catch {
                        release(address)
                        throw error
                    }
                }
            }
            .bind(host: configuration.host, port: configuration.port).get()
        let reports = group.next().scheduleRepeatedTask(
            initialDelay: .nanoseconds(configuration.reportInterval.nanosecondCount),
            delay: .nanoseconds(configuration.reportInterval.nanosecondCount)
        ) { [self] _ in
            let now = WallClockTime.now()
            for source in mounts.withLock({ Array($0.values) }) {
                source.sendReports(now: now, canonicalName: configuration.name)
            }
        }
        running.withLock { $0 = Running(listener: listener, udp: udp, multicast: multicast, reports: reports) }
        let scheme = tls == nil ? "RTSP" : "RTSPS"
        logger.info("serving \(scheme) on \(configuration.host):\(listener.localAddress?.port ?? configuration.port)")
    }

    /// What happens to the server's viewers from now on: who joins, falls behind and leaves, each path they
    /// play and from where. Each call gets its own stream, which holds the newest 1024 events it has not read
    /// and ends when the task reading it is cancelled.
    public func events() -> AsyncStream<RTSPServerEvent> { viewerEvents.stream() }

    /// Stops listening and closes every connection.
    public func stop() async {
        guard
            let running = running.withLock({ state -> Running? in
                defer { state = nil }
                return state
            })
        else { return }
        running.reports.cancel()
        try? await running.listener.close()
        try? await running.udp?.rtp.close()
        try? await running.udp?.rtcp.close()
        try? await running.multicast?.socket.close()
    }

    /// Counts a new connection from `address` in, unless the server or the address is full.
    private func admit(_ address: String) -> Bool {
        switch connections.admit(from: address) {
        case nil: return true
        case .full:
            logger.debug("connection refused: \(configuration.maxConnections) connections already")
        case .addressFull:
            logger.debug("connection refused: its address has \(configuration.maxConnectionsPerAddress ?? 0) already")
        }
        return false
    }

    /// Counts a connection from `address` out (it closed).
    func release(_ address: String) { connections.release(from: address) }

    /// The key a connection's address is counted under: its IP, without the port.
    static func addressKey(_ address: SocketAddress?) -> String { address?.ipAddress ?? "unknown" }

    /// The socket multicast groups are sent from, out of ``Configuration/multicastInterface``.
    private func bindMulticast() async throws(RTSPServerError) -> MulticastFanOut {
        let interface = configuration.multicastInterface
        if let interface, MulticastFanOut.ipv4(interface) == nil {
            throw RTSPServerError(
                .multicastFailed,
                "the multicast interface \(interface) is not an IPv4 address: give one of this host's, or none")
        }
        do {
            return MulticastFanOut(
                socket: try await MulticastFanOut.bind(
                    interface: interface, ttl: configuration.multicastTTL,
                    writeBufferLimit: configuration.writeBufferLimit * 4, group: group))
        } catch {
            throw RTSPServerError(
                .multicastFailed,
                "cannot send multicast from \(interface ?? "any interface") (\(error)): give an IPv4 address of one of "
                    + "this host's interfaces, or serve without UDP (servesUDP false)")
        }
    }

    /// Two UDP sockets, RTP on an even port and RTCP on the next when one is free (RFC 3550 section 11).
    private func bindUDPPair() async throws -> (rtp: any Channel, rtcp: any Channel) {
        let talkers = udpTalkers
        // Every UDP client's packets queue on these sockets: their bound is the TCP connections' times a few
        // clients, so that a burst to many clients is not taken for a client that cannot keep up.
        let limit = configuration.writeBufferLimit * 4
        func bootstrap(reading makeHandler: @escaping @Sendable () -> any ChannelInboundHandler) -> DatagramBootstrap {
            DatagramBootstrap(group: group).channelOption(.socketOption(.so_reuseaddr), value: 1)
                .channelOption(.writeBufferWaterMark, value: .init(low: limit / 2, high: limit))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(makeHandler())
                    }
                }
        }
        // The RTP socket takes the voices of viewers that talk over UDP; what else comes is dropped (receiver
        // reports, strays).
        let rtpBootstrap = bootstrap { UDPTalkHandler(talkers: talkers) }
        let rtcpBootstrap = bootstrap { DiscardingHandler() }
        for _ in 0..<16 {
            let rtp = try await rtpBootstrap.bind(host: configuration.host, port: 0).get()
            guard let port = rtp.localAddress?.port else { continue }
            if port % 2 == 0, let rtcp = try? await rtcpBootstrap.bind(host: configuration.host, port: port + 1).get()
            {
                return (rtp, rtcp)
            }
            try? await rtp.close()
        }
        let rtp = try await rtpBootstrap.bind(host: configuration.host, port: 0).get()
        let rtcp = try await rtcpBootstrap.bind(host: configuration.host, port: 0).get()
        return (rtp, rtcp)
    }
}

/// Reads and drops what clients send to the server's UDP ports (their receiver reports).
final class DiscardingHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}

/// A server's mounted sources, as its connections' state machines ask for them (each request sees what is mounted
/// then).
struct MountedSources: RTSPServerPolicy {
    let server: RTSPServer

    func presentation(at path: String) -> RTSPServerStateMachine.Presentation? { server.presentation(at: path) }

    func allows(user: String?, toPlay path: String) -> Bool { server.configuration.access?(user, path) ?? true }
}
