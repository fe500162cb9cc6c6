import CoreMetrics
import Logging
import MediaPipeline
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import RTP
@_spi(SansIO) import RTSP
import SRTP
import SDP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Carries out an ``RTSPClientStateMachine``'s actions on one event loop: the RTSP connection, the UDP
/// sockets, the timers, redirects and the fallback from UDP to TCP. Every method that touches its state
/// runs on `eventLoop` (the public entry points hop there), so it needs no lock.
final class SessionDriver: @unchecked Sendable {
    enum Phase { case starting, playing, closing, closed }

    let eventLoop: any EventLoop
    let options: RTSPSessionOptions
    let continuation: AsyncThrowingStream<RTSPPackets.Batch, any Error>.Continuation
    /// Succeeds when the session is over, however it ended.
    let closed: EventLoopPromise<Void>

    /// Our SSRC in RTCP receiver reports, and our CNAME: random, so that they say nothing about the host.
    let ssrc = UInt32.random(in: 1...UInt32.max)
    let canonicalName = "swift-rtp-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
    /// The user's credentials (the options', else the first URL's), for the first URL's origin only.
    private let credentials: ScopedCredentials?
    private(set) var url: RTSPURL
    /// Which transport the session plays, and when it falls back to TCP.
    private(set) var transportPolicy: TransportPolicy
    var transport: RTSPSessionOptions.Transport { transportPolicy.current }
    var machine: RTSPClientStateMachine
    var framer: RTSPFramer
    var control: (any Channel)?
    var generation = 0
    var phase = Phase.starting
    /// PLAY has been answered (on this connection or an earlier one).
    private(set) var hasPlayed = false
    var redirects: RedirectPolicy
    /// A session that broke and plays again (``RTSPSessionOptions/reconnection``).
    var recovery = Recovery()
    /// The tracks as first played: a reconnected session must find the same.
    var playedTracks: [RTSPTrack] = []
    private var timers: [Scheduled<Void>] = []
    private var repeating: [RepeatedTask] = []
    /// The session's metrics (``RTSPSessionOptions/metricsName``) and the task that publishes them each second,
    /// from the first PLAY to the end.
    private let metrics: SessionMetrics?
    private var metricsTask: RepeatedTask?
    /// Watches the tracks' loss over ``RTSPSessionOptions/lossWindow`` while playing.
    private lazy var lossWatch = LossWatch(threshold: options.lossThreshold, window: options.lossWindow)
    var udpPairs: [UDPPortPair] = []
    /// Multicast: each track's group RTCP address, known from SETUP, for the receiver reports.
    var multicastRTCP: [Int: SocketAddress] = [:]
    var media = MediaState()
    /// The RTP stream of each backchannel track the client sends on (ONVIF), by track index.
    /// Each backchannel track's sending side (made at its first packet).
    var backchannelTracks: [Int: OutgoingTrack] = [:]
    var fellBackToTCP: Bool { transportPolicy.fellBackToTCP }
    /// Paused: the server holds the media, so silence is not inactivity.
    private(set) var isPaused = false
    /// The caller of ``pause()`` or ``resume()``, waiting for the answer.
    private var controlRequest: EventLoopPromise<Void>?
    /// Made once, for the first `rtsps://` connection.
    private var tlsContext: NIOSSLContext?
    /// With the `.http` transport: the tunnel of the current connection, its POST connection (the client's
    /// side; `control` is the GET's), and the GET's answer while its head is still coming (nil after).
    var tunnel: HTTPTunnel?
    var tunnelPost: (any Channel)?
    var tunnelAnswer: [UInt8]?
    /// What the server sent on the POST, while it may be a refusal.
    var tunnelPostAnswer: [UInt8] = []
    /// Credentials for a tunnel whose GET was answered 401, for the origin that asked.
    private var tunnelAuthentication: (origin: RTSPURL.Origin, authenticator: Authenticator)?
    var tunnelAuthenticator: Authenticator? {
        get { tunnelAuthentication?.origin == url.origin ? tunnelAuthentication?.authenticator : nil }
        set { tunnelAuthentication = newValue.map { (url.origin, $0) } }
    }

    /// The user's credentials if they may go to `target` (its origin is theirs).
    func credentials(for target: RTSPURL) -> Credentials? { credentials?.credentials(for: target) }
    private(set) var requestsSent = 0
    /// What the packet sequence ends with once TEARDOWN is answered, when the client ended a failed session.
    private var closingError: RTSPClientError?
    /// Stop after DESCRIBE and after SETUP for the caller (``RTSPDescribedSession``). Off once the caller
    /// has chosen its tracks: a new connection (fallback to TCP) then goes straight through with them.
    var stepwise = false
    /// The tracks the caller chose, by index into those offered; nil: all.
    private var selection: [Int]?
    /// The caller of a step (describe, setup, play), waiting for it to be answered: the tracks.
    var stepRequest: EventLoopPromise<[RTSPTrack]>?

    init(url: RTSPURL, options: RTSPSessionOptions, eventLoop: any EventLoop) {
        self.url = url
        self.options = options
        self.eventLoop = eventLoop
        self.credentials = (options.credentials ?? url.credentials).map { ScopedCredentials($0, for: url.origin) }
        self.transportPolicy = TransportPolicy(asked: options.transport)
        self.redirects = RedirectPolicy(limit: options.maxRedirects)
        self.framer = RTSPFramer(limits: options.framerLimits)
        self.machine = RTSPClientStateMachine(configuration: .init(url: url))
        // Batches hold a read's packets; the bounds (packetBufferCapacity, packetBufferByteCapacity) are kept
        // by `backlog`.
        let stream = AsyncThrowingStream.makeStream(of: RTSPPackets.Batch.self)
        self.packets = RTSPPackets(batches: stream.stream, backlog: backlog, position: position, claim: .init())
        self.continuation = stream.continuation
        (events, eventsContinuation) = AsyncStream.makeStream(
            of: RTSPSessionEvent.self, bufferingPolicy: .bufferingNewest(256))
        self.closed = eventLoop.makePromise()
        metrics = options.metricsName.map {
            SessionMetrics(name: $0, factory: options.metricsFactory ?? MetricsSystem.factory)
        }
    }

    /// What the consumer iterates.
    let packets: RTSPPackets
    /// What happens to the session (``RTSPSession/events``): the newest 256 kept for a consumer that lags.
    let events: AsyncStream<RTSPSessionEvent>
    private let eventsContinuation: AsyncStream<RTSPSessionEvent>.Continuation

    func tell(_ event: RTSPSessionEvent) { eventsContinuation.yield(event) }
    /// Packets handed to the consumer and not yet taken, and their bytes.
    let backlog = NIOLockedValueBox(RTSPPackets.Backlog())
    /// Seeks answered: packets handed over before the latest are dropped by the consumer.
    let position = RTSPPackets.Position()
    /// Packets delivered during the current read, handed to the consumer when the read completes.
    var batch: [RTSPReceivedPacket] = []
    /// Sender reports of the tracks' sources that came during the current read, handed on with its packets:
    /// the consumer's pipeline dates units by them.
    var batchReports: [ReceivedSenderReport] = []
    /// Where each received packet's bytes are copied (the one copy between the socket and the depacketizer).
    var packetBuffers = PacketBufferPool()

    var logger: Logger { options.logger }
    /// Logs `message` when `isFirst`: the first of a kind of anomaly, which its counter tells (one integer
    /// test per event; the message is built only then).
    func logFirst(_ isFirst: Bool, _ level: Logger.Level, _ message: @autoclosure () -> String) {
        guard isFirst else { return }
        logger.log(level: level, "\(message()) (further ones are counted in the statistics)")
    }

    /// Now, on the monotonic clock that NIO's timers and the packets' arrival times use.
    var now: ArrivalTime { .now() }

    // MARK: Starting, redirects, fallback

    /// Connects and starts the state machine. On the event loop.
    func start() {
        eventLoop.preconditionInEventLoop()
        generation += 1
        let generation = self.generation
        framer = RTSPFramer(limits: options.framerLimits)
        let mode: RTSPClientStateMachine.TransportMode
        switch transport {
        case .udp where !udpPairs.isEmpty: mode = .udp(firstClientPort: udpPairs[0].rtpPort, portPairs: udpPairs.count)
        case .multicast: mode = .multicast
        default: mode = .tcpInterleaved
        }
        machine = RTSPClientStateMachine(
            configuration: .init(
                url: url, credentials: credentials?.credentials(for: url), transport: mode,
                requestTimeout: options.requestTimeout,
                stepwise: stepwise, trackSelection: selection, staleSession: recovery.takeStaleSession(for: url.origin),
                onlyTearsDownStaleSession: phase == .closing, mediaKinds: options.mediaKinds,
                playback: options.playback,
                additionalHeaders: options.additionalHeaders, backchannel: options.backchannel))
        logger.debug("connecting to \("\(url.origin)".escapingControlCharacters) (\(transport), attempt \(generation))")
        if url.isSecure && tlsContext == nil {
            do throws(RTSPClientError) {
                tlsContext = try TLSContext.make(options.tls)
            } catch {
                return finish(error)  // the options are wrong: no attempt can mend that
            }
        }
        if transport == .http {
            tunnel = HTTPTunnel(url: url)
            tunnelAnswer = []
        } else {
            tunnel = nil
        }
        connect(generation: generation) { [self] in ControlChannelHandler(driver: self, generation: generation) }
            .whenSuccess { [self] channel in
                control = channel
                // Through the HTTP tunnel, the GET first; the machine starts once it is answered.
                if let tunnel {
                    channel.writeAndFlush(ByteBuffer(bytes: tunnelGetRequest(tunnel)), promise: nil)
                } else {
                    perform(machine.start(now: now))
                }
            }
    }

    /// A TCP (or, for `rtsps://`, TLS) connection to the URL's host and port with `handler`, on the event
    /// loop; a failure fails the session (or its attempt), a connection that completes for a generation
    /// that was left is closed.
    func connect(generation: Int, handler: @escaping () -> any ChannelHandler) -> EventLoopFuture<any Channel> {
        let target = (host: url.host, port: url.port)
        let tls = url.isSecure ? tlsContext : nil
        let connected = eventLoop.makePromise(of: (any Channel).self)
        ClientBootstrap(group: eventLoop)
            .connectTimeout(.nanoseconds(options.connectTimeout.nanosecondCount))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelOption(.writeBufferWaterMark, value: Self.writeBufferWaterMark)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(
                            TLSContext.handler(context: tls, host: target.host))
                    }
                    try channel.pipeline.syncOperations.addHandler(handler())
                }
            }
            .connect(host: target.host, port: target.port)
            .hop(to: eventLoop)
            .whenComplete { [self] result in
                switch result {
                case .success(let channel):
                    guard generation == self.generation, phase != .closed else {
                        channel.close(promise: nil)
                        return
                    }
                    connected.succeed(channel)
                case .failure(let error):
                    guard generation == self.generation else { return }
                    // NIO lists every address tried; the first reason is the one a user can act on, in the
                    // system's words for its errno ("Connection refused") rather than NIO's description.
                    let first = (error as? NIOConnectionError)?.connectionErrors.first?.error ?? error
                    let reason = Self.reason(first)
                    fail(
                        RTSPClientError(
                            .connectionFailed,
                            "could not connect to \(target.host):\(target.port): \(reason); check the address and that the camera is on"
                        ))
                }
            }
        return connected.futureResult
    }

    /// Leaves the current connection (its handler's events are ignored from now on) and starts again.
    private func restart() {
        let old = leaveConnection()
        start()  // a new generation first: closing the old connection reports its end at once
        if let old { Self.retire(old) }
    }

    /// Closes a connection the session has left once what was written on it has reached the server: its
    /// output first (a FIN after the TEARDOWN just written), the whole of it when the server closes its side
    /// or a second later. Closed at once, with the server's answers still unread, the connection is reset
    /// (RST), and a server that had not yet read the TEARDOWN loses it with its session left behind.
    static func retire(_ channel: any Channel) {
        channel.close(mode: .output).whenComplete { result in
            guard case .success = result else { return channel.close(promise: nil) }  // TLS: no half-close
            channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
        }
    }

    /// Forgets the current connection and what was set up on it (the counters go on), and returns it for
    /// the caller to close. Its generation ends first: closing the tunnel's POST here reports its end at
    /// once, which must not read as the end of what comes next (a redirect inside the tunnel failed so).
    func leaveConnection() -> (any Channel)? {
        generation += 1
        let old = control
        control = nil
        closeTunnel()
        cancelTimers()
        media = media.continued()
        phase = .starting
        return old
    }

    private func redirect(to target: RTSPURL) {
        if let tooMany = redirects.redirect(to: target) { return finish(tooMany) }
        // `start` gives the new connection the user's credentials only if the target has their origin.
        logger.info("redirected to \("\(target)".escapingControlCharacters)")
        if let credentials, target.origin != credentials.origin {
            let text = "\(target.origin) is not \(credentials.origin), which the credentials were given for"
            logger.notice("\(text.escapingControlCharacters): they are not sent there")
        }
        url = target
        restart()
    }

    /// Points the next connection at `target` without counting a redirect (tearing a stale session down
    /// where it lives).
    func goBack(to target: RTSPURL) { url = target }

    /// A 401 from a server a redirect led to, which was not given the user's credentials: says so, so that
    /// the user does not look for a wrong password at the camera they named.
    private func explainingWithheldCredentials(_ error: RTSPClientError) -> RTSPClientError {
        guard error.code == .unauthorized, let credentials, url.origin != credentials.origin,
            url.credentials == nil
        else { return error }
        return RTSPClientError(
            .unauthorized,
            "401 Unauthorized from \(url.origin), where a redirect from \(credentials.origin) led: the credentials "
                + "given for \(credentials.origin) are not sent to another host, port or scheme; if \(url.origin) is "
                + "yours, connect to \(url) with its own credentials", status: error.status)
    }

    /// `.auto` saw no UDP packet in time: say goodbye to the UDP session and play again over TCP.
    private func fallBackToTCP() {
        logger.notice("nothing arrived over \(transport) in time: playing again over TCP (interleaved)")
        for case .send(let request, let cseq) in machine.teardown(now: now) { write(request.serialized(cseq: cseq)) }
        for pair in udpPairs { pair.close() }
        udpPairs = []
        multicastRTCP = [:]
        transportPolicy.fallBack()
        restart()
    }

    // MARK: The state machine's actions

    func perform(_ actions: [RTSPClientStateMachine.Action]) {
        for action in actions {
            guard phase != .closed else { return }
            switch action {
            case .joinMulticast(let tracks):
                guard udpPairs.isEmpty else {  // joined on an earlier connection of the session
                    perform(machine.multicastJoined(now: now))
                    continue
                }
                joinMulticast(tracks) { [self] in perform(machine.multicastJoined(now: now)) }
            case .send(let request, let cseq):
                requestsSent += 1
                write(request.serialized(cseq: cseq))
            case .respond(let status, let reason, let cseq):
                write(RTSPMessage.response(status: status, reason: reason, cseq: cseq).serialized())
            case .described(let tracks), .setUp(let tracks):
                stepRequest?.succeed(tracks)
                stepRequest = nil
            case .playing(let tracks):
                startPlaying(tracks)
                stepRequest?.succeed(tracks)
                stepRequest = nil
            case .wakeUp(let at):
                schedule(at: at) { [self] in perform(machine.tick(now: now)) }
            case .paused:
                isPaused = true
                controlRequest?.succeed()
                controlRequest = nil
            case .resumed:
                isPaused = false
                for index in media.tracks.indices { media.tracks[index].discontinuityPending = true }
                media.lastArrival = now
                controlRequest?.succeed()
                controlRequest = nil
            case .seeked(let tracks):
                isPaused = false
                startSeekedMedia(tracks)
                media.lastArrival = now
                controlRequest?.succeed()
                controlRequest = nil
            case .redirect(let target):
                redirect(to: target)
            case .failed(let error):
                fail(explainingWithheldCredentials(error))
            case .closed:
                finish(nil)
            }
        }
    }

    var sessionDescription: SessionDescription? { machine.sessionDescription }

    var controlRemoteAddress: SocketAddress? { control?.remoteAddress }
    var controlLocalAddress: SocketAddress? { control?.localAddress }

    /// What may wait to be written to the server: past the high mark a channel is unwritable.
    static let writeBufferWaterMark = ChannelOptions.Types.WriteBufferWaterMark(low: 256 << 10, high: 1 << 20)

    /// Writes to the server (through the tunnel's POST with `.http`). A server that stops reading while it
    /// makes us write (requests to answer, a flood of them) would grow what waits without end: past
    /// ``writeBufferWaterMark`` the session ends with an error instead.
    func write(_ bytes: [UInt8]) {
        guard let channel = tunnel != nil ? tunnelPost : control else { return }
        guard channel.isWritable else {
            return fail(
                RTSPClientError(
                    .protocolViolation,
                    "the server does not read what the client sends (over \(Self.writeBufferWaterMark.high >> 10) KiB "
                        + "wait to be written, answers to its own requests among them): ending the session"))
        }
        channel.writeAndFlush(ByteBuffer(bytes: tunnel != nil ? HTTPTunnel.encode(bytes) : bytes), promise: nil)
    }

    private func startPlaying(_ tracks: [RTSPTrack]) {
        let interleaved = tracks.contains { $0.transport?.interleavedChannels != nil }
        transportPolicy.playing(interleaved: interleaved, hasUDPPorts: !udpPairs.isEmpty)
        let reconnected = hasPlayed
        if reconnected {
            if let changed = Self.trackChange(from: playedTracks, to: tracks) { return finish(changed) }
            tell(.resumed(gap: recovery.currentGap(at: now)))
            playingAgain()
        } else {
            tell(.playing)
            playedTracks = tracks
            if recovery.attempts > 0 {
                logger.notice("playing, after \(recovery.attempts) failed attempt(s) to connect")
                recovery.playedFirst()
            }
        }
        media.configure(tracks: tracks, transport: transport, arrival: now, afterBreak: reconnected)
        for (index, track) in tracks.enumerated() where track.isSecure {
            do throws(SRTPError) {
                media.tracks[index].srtp = try Self.srtpReceiver(for: track)
            } catch {
                return finish(RTSPClientError(.unsupported, "track \(index) is SRTP and \(error)"))
            }
        }
        phase = .playing
        let formats = tracks.map { "\($0.format.encodingName) payload type \($0.format.payloadType)" }
        logger.info("playing \(tracks.count) track(s) over \(transport): \(formats.joined(separator: ", "))")
        if !machine.tracksWithoutPorts.isEmpty {
            logger.warning(
                "\(machine.tracksWithoutPorts.count) more track(s) than the \(udpPairs.count) UDP port pairs bound: playing the first \(tracks.count); the TCP transport plays them all"
            )
        }
        for refused in machine.refusedTracks {
            logger.warning(
                "the server refused the audio track \("\(refused.track.control)".escapingControlCharacters) (\(refused.status)): playing without it"
            )
        }
        if transport == .udp { openUDPPaths(tracks) }
        if transport == .multicast {
            for (index, address) in multicastRTCP where index < media.tracks.count {
                media.tracks[index].rtcpAddress = address
            }
        }
        let report = options.receiverReportInterval
        repeating.append(
            eventLoop.scheduleRepeatedTask(initialDelay: .init(report), delay: .init(report)) { [self] _ in
                sendReceiverReports()
                sendBackchannelReports()
            })
        let shortest = min(options.inactivityTimeout, options.stallThreshold)
        let check = TimeAmount.milliseconds(min(1000, max(50, shortest.milliseconds / 4)))
        repeating.append(
            eventLoop.scheduleRepeatedTask(initialDelay: check, delay: check) { [self] _ in checkInactivity() })
        if transportPolicy.mayFallBack {
            schedule(at: now + options.udpFallbackTimeout) { [self] in
                if phase == .playing && transportPolicy.mayFallBack && media.rtpPackets == 0 { fallBackToTCP() }
            }
        }
        hasPlayed = true
        if metrics != nil, metricsTask == nil {
            metricsTask = eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { [self] _ in
                metrics?.publish(statistics(), playing: phase == .playing && control != nil)
            }
        }
        for early in media.takeEarly() { deliver(early.bytes, track: early.track, isRTCP: early.isRTCP) }
        handOver()
    }

    /// The receiver for an `RTP/SAVP` track: its first `a=crypto` key this library can use.
    static func srtpReceiver(for track: RTSPTrack) throws(SRTPError) -> SRTPReceiver {
        var lastError = SRTPError(.invalidKey, "its SDP gives no a=crypto key (SDES); MIKEY is not supported")
        for attribute in track.cryptoAttributes {
            do throws(SRTPError) {
                return try SRTPReceiver(key: SRTPKey(cryptoAttribute: attribute))
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    private func checkInactivity() {
        // A session that only talks (its tracks all backchannels) receives nothing to be silent about: its
        // keepalives' answers say the server is there.
        guard phase == .playing, !isPaused, media.tracks.contains(where: { !$0.description.isBackchannel }) else {
            return
        }
        for event in lossWatch.observe(statistics().tracks, now: now) { tell(event) }
        let silent = now - media.lastArrival
        if silent >= options.stallThreshold, media.stalledSince == nil {
            media.stalledSince = media.lastArrival
            tell(.stalled(silence: silent))
        }
        guard silent >= options.inactivityTimeout else { return }
        // With `.auto`, a silent UDP session gets TCP's chance before failing.
        if transportPolicy.mayFallBack { return fallBackToTCP() }
        let error = RTSPClientError(
            .noMedia,
            "no RTP or RTCP from the server for \(options.inactivityTimeout) while playing"
                + (transport.isInterleaved ? "" : "; a firewall or NAT may drop UDP: try the TCP transport"))
        // A session that reconnects tears down on the way (``reconnect(after:)``).
        if willReconnect(after: error) { return fail(error) }
        // The RTSP connection may well be alive (UDP blocked on the way): TEARDOWN frees the server's session.
        teardown(reporting: error)
    }

    // MARK: Timers

    func schedule(at time: ArrivalTime, _ body: @escaping @Sendable () -> Void) {
        // ArrivalTime reads the monotonic clock NIODeadline does.
        timers.append(
            eventLoop.scheduleTask(deadline: .uptimeNanoseconds(UInt64(max(0, time.nanoseconds)))) { [self] in
                guard phase != .closed else { return }
                body()
            })
        if timers.count > 64 { timers.removeFirst(timers.count - 64) }  // old ones have fired long ago
    }

    func cancelTimers() {
        for timer in timers { timer.cancel() }
        for task in repeating { task.cancel() }
        timers = []
        repeating = []
    }

    // MARK: Ending

    /// PAUSE (`pausing: true`) or PLAY again; `promise` succeeds when the server has answered, and fails
    /// when the session is not playing (or not paused) or ends first. On the event loop.
    func pauseOrResume(pausing: Bool, promise: EventLoopPromise<Void>) {
        let actions = pausing ? machine.pause(now: now) : machine.resume(now: now)
        guard phase == .playing, controlRequest == nil, !actions.isEmpty else {
            return promise.fail(
                RTSPClientError(
                    .invalidCall, pausing ? "pause() needs a playing session" : "resume() needs a paused session"))
        }
        controlRequest = promise
        perform(actions)
    }

    /// PLAY from another position, while playing or paused; the promise is kept once the server answers.
    func seek(_ playback: PlaybackRequest, promise: EventLoopPromise<Void>) {
        let actions = phase == .playing && controlRequest == nil ? machine.seek(playback, now: now) : []
        guard !actions.isEmpty else {
            return promise.fail(
                RTSPClientError(.invalidCall, "seek() needs a playing or paused session, with no request under way"))
        }
        controlRequest = promise
        holdForSeek()
        perform(actions)
    }

    /// Stepwise: SETUP of the offered tracks at `selection` (nil: all); the step request gets them with
    /// their transports. A step of ``awaitStep(_:)``, on the event loop.
    func setup(selection: [Int]?) throws(RTSPClientError) {
        guard stepwise else { throw RTSPClientError(.invalidCall, "setup() comes once, after describe") }
        self.selection = selection
        stepwise = false
        perform(machine.setup(tracks: selection, now: now))
    }

    /// Stepwise: PLAY; the step request gets the tracks once it is answered (at once when a new connection
    /// has already played them). A step of ``awaitStep(_:)``, on the event loop.
    func play() throws(RTSPClientError) {
        if phase == .playing, hasPlayed {
            stepRequest?.succeed(machine.tracks)
            stepRequest = nil
            return
        }
        guard !stepwise else { throw RTSPClientError(.invalidCall, "play() comes once, after setup") }
        perform(machine.play(now: now))
    }

    /// Ends the session politely: TEARDOWN when there is a session, then the sockets close; the packet
    /// sequence then ends with `error`, or normally when it is nil. On the event loop.
    func teardown(reporting error: RTSPClientError? = nil) {
        switch phase {
        case .closed, .closing: return
        case .starting, .playing:
            if control == nil && hasPlayed { return endWhileReconnecting() }
            logger.debug("tearing down\(error.map { ": \($0)" } ?? "")")
            phase = .closing
            closingError = error
            schedule(at: now + options.teardownTimeout) { [self] in finish(nil) }
            perform(machine.teardown(now: now))
        }
    }

    /// Closes everything and ends the packet sequence, with `error` when the session failed.
    func finish(_ failure: RTSPClientError?) {
        guard phase != .closed else { return }
        // Once closing, how the connection ends is no news: the reason for closing is.
        let error = phase == .closing ? closingError : failure
        handOver()
        if let error { logger.info("the session ended: \(error)") } else { logger.debug("the session ended") }
        phase = .closed
        cancelTimers()
        metricsTask?.cancel()
        metrics?.publish(statistics(), playing: false)
        recovery.cancelWait()
        control?.close(promise: nil)
        control = nil
        closeTunnel()
        for pair in udpPairs { pair.close() }
        udpPairs = []
        controlRequest?.fail(error ?? RTSPClientError(.connectionClosed, "the session ended"))
        controlRequest = nil
        // Ended while first connects were retried: why they failed is the news.
        stepRequest?.fail(
            error ?? recovery.lastBreak
                ?? RTSPClientError(.connectionClosed, "the session was torn down before it played"))
        stepRequest = nil
        if let error {
            continuation.finish(throwing: error)
        } else {
            continuation.finish()
        }
        tell(.ended(error))
        eventsContinuation.finish()
        closed.succeed()
    }

    // MARK: The RTSP connection

    func controlBytes(_ buffer: ByteBuffer, generation: Int) {
        guard generation == self.generation, phase != .closed else { return }
        if tunnelAnswer != nil { return tunnelBytes(buffer) }
        buffer.withUnsafeReadableBytes { framer.append($0) }
        readFramer(generation: generation)
    }

    /// Hands on the messages and interleaved frames the framer holds.
    func readFramer(generation: Int) {
        do {
            while phase != .closed, generation == self.generation, let frame = try framer.next() {
                switch frame {
                case .message(let message):
                    perform(machine.receive(message, now: now))
                case .interleaved(let channel, let payload):
                    interleaved(payload.withUnsafeBytes { packetBuffers.copy($0) }, channel: channel)
                }
            }
        } catch {
            fail(RTSPClientError(.protocolViolation, "the server sent something that is not RTSP: \(error.reason)"))
        }
    }

    func controlClosed(generation: Int, error: (any Error)?) {
        guard generation == self.generation else { return }
        switch phase {
        case .closed: return
        case .closing: finish(nil)
        case .starting, .playing:
            if let error, let tls = TLSContext.describe(error, host: url.host) {
                return finish(RTSPClientError(.tlsFailed, tls))
            }
            let detail = error.map { ": \(Self.reason($0))" } ?? ""
            fail(
                RTSPClientError(
                    .connectionClosed,
                    phase == .playing
                        ? "the server closed the RTSP connection while playing\(detail)"
                        : "the server closed the RTSP connection before the session played\(detail)"))
        }
    }
}

extension SessionDriver {
    /// A system error in the system's words for its errno ("Connection reset by peer"), not NIO's
    /// description of the call that met it (`read(descriptor:pointer:size:)… (errno: 104)`).
    static func reason(_ error: any Error) -> String {
        (error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? "\(error)"
    }
}

extension Duration {
    var milliseconds: Int64 { nanosecondCount / 1_000_000 }
}

extension TimeAmount {
    init(_ duration: Duration) { self = .nanoseconds(duration.nanosecondCount) }
}
