import NIOCore
import RTP
@_spi(SansIO) import RTPTransport
@_spi(SansIO) import RTSP
import SDP

/// One client's RTSP connection: its bytes framed into requests (and the client's interleaved RTCP), the
/// requests through the connection's ``RTSPServerStateMachine``, its actions carried out, within the
/// connection's budget (``RTSPServer``). Runs on the connection's event loop.
///
/// Requests are taken only while the connection can be written to and no answer is being held: otherwise they
/// wait in the framer, and the socket is not read (a `read` asked meanwhile is held until then), so a client
/// that sends and never reads fills its own socket buffers, not the server's memory.
final class ServerConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let server: RTSPServer
    private let udp: (rtp: any Channel, rtcp: any Channel)?
    /// Where multicast viewers join their path's group; nil when the server sends no multicast.
    private let multicast: MulticastFanOut?
    /// The client's address, as the server counts it (connections, wrong answers).
    private let address: String
    private var machine: RTSPServerStateMachine
    private var framer: RTSPFramer
    private var deadlines: ConnectionDeadlines
    /// Each playing session's viewer: how it stops taking media, and the task that feeds a recording's source.
    private var playing: [String: Playing] = [:]

    struct Playing {
        let report: ViewerReport
        let feeding: Task<Void, Never>?
        /// Stops its media; returns the units it was skipped.
        let leave: () -> Int

        /// Counted and told as a viewer (``ViewerReport``) until it stops.
        init(report: ViewerReport, feeding: Task<Void, Never>? = nil, leave: @escaping () -> Int) {
            self.report = report
            self.feeding = feeding
            self.leave = leave
            report.joined()
        }

        /// A viewer of its own subscriber to `source`.
        init(source: MediaSource, subscriber: Subscriber, report: ViewerReport, feeding: Task<Void, Never>? = nil) {
            self.init(report: report, feeding: feeding) {
                source.unsubscribe(subscriber)
                return subscriber.skippedUnits
            }
        }

        func stop() {
            feeding?.cancel()
            report.left(skippedUnits: leave())
        }
    }
    /// The playing sessions whose viewer talks (its backchannel track set up): its talker, and where its voice comes
    /// from (an interleaved channel of this connection, or a UDP address).
    private var talking: [String: (talker: Talker, channel: UInt8?, address: SocketAddress?)] = [:]
    /// Each session's last recording source: a new PLAY of it (a seek) goes on with its RTP streams.
    private var recordingSources: [String: MediaSource] = [:]
    /// The sessions the server was last told this connection holds.
    private var sessionsCounted = 0
    /// The one timer: when the machine's sessions or the connection's deadlines next have something to do.
    private var wakeUp = WakeUpTimer()
    /// A 401 being held (repeated wrong answers are slowed): nothing more is taken until it is written.
    private var holdingAnswer = false
    /// A read the channel asked for while requests were not being taken.
    private var readHeld = false
    private var isClosing = false

    init(
        server: RTSPServer, udp: (rtp: any Channel, rtcp: any Channel)?, multicast: MulticastFanOut?, address: String
    ) {
        self.server = server
        self.udp = udp
        self.multicast = multicast
        self.address = address
        let settings = server.configuration
        var configuration = RTSPServerStateMachine.Configuration()
        configuration.authentication = settings.authentication
        configuration.sessionTimeout = settings.sessionTimeout
        configuration.serverName = settings.name
        configuration.maxSessions = settings.maxSessionsPerConnection
        if let udp, let rtp = udp.rtp.localAddress?.port, let rtcp = udp.rtcp.localAddress?.port {
            configuration.udpPorts = (UInt16(truncatingIfNeeded: rtp), UInt16(truncatingIfNeeded: rtcp))
        }
        if multicast != nil { configuration.multicastTTL = settings.multicastTTL }
        machine = RTSPServerStateMachine(policy: MountedSources(server: server), configuration: configuration)
        framer = RTSPFramer(limits: .init(maxBodyBytes: settings.maxRequestBodyBytes))
        deadlines = ConnectionDeadlines(
            requestTimeout: settings.requestTimeout, idleTimeout: settings.sessionTimeout,
            stallTimeout: settings.stalledConnectionTimeout, now: .now())
    }

    /// Whether requests are taken now.
    private func takesRequests(_ context: ChannelHandlerContext) -> Bool {
        context.channel.isWritable && !holdingAnswer && !isClosing
    }

    func channelActive(context: ChannelHandlerContext) {
        armWakeUp(context: context)
        context.fireChannelActive()
    }

    /// Sets the timer for the earliest thing due (the machine's ``RTSPServerStateMachine/nextWakeUp``, the
    /// deadlines'), unless one as early is set: a timer that fires early (a deadline moved on) just sets the next.
    private func armWakeUp(context: ChannelHandlerContext) {
        let due = [machine.nextWakeUp, deadlines.nextDeadline(hasSessions: !machine.sessionIDs.isEmpty)].compactMap {
            $0
        }.min()
        guard !isClosing else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        wakeUp.set(at: due, on: context.eventLoop) {
            let (handler, context) = loopBound.value
            handler.wakeUp.fired()
            handler.wake(context: context)
        }
    }

    /// Sessions that timed out end; a connection past a deadline closes.
    private func wake(context: ChannelHandlerContext) {
        defer { armWakeUp(context: context) }
        let now = ArrivalTime.now()
        carryOut(machine.expire(now: now), context: context)
        deadlines.writability(context.channel.isWritable, now: now)
        switch deadlines.check(now: now, hasSessions: !machine.sessionIDs.isEmpty) {
        case .keep: return
        case .requestTimedOut:
            server.logger.debug("closing a connection: a request did not arrive whole in time")
            let answer = RTSPMessage(
                kind: .response(statusCode: 408, reason: "Request Timeout"),
                headers: [("CSeq", "0"), ("Reason", "a request did not arrive whole in time")], body: [])
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer.serialized())), promise: nil)
            close(context)
        case .idle:
            close(context)
        case .stalled:
            server.logger.debug("closing a connection: its client has not read for the stall timeout")
            close(context)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        buffer.withUnsafeReadableBytes { framer.append($0) }
        takeRequests(context: context)
    }

    /// Frames and answers what the framer holds, while requests are taken.
    private func takeRequests(context: ChannelHandlerContext) {
        var whole = 0
        do {
            while takesRequests(context), let frame = try framer.next() {
                whole += 1
                switch frame {
                case .message(let message):
                    carryOut(machine.receive(message, now: .now()), context: context)
                case .interleaved(let channel, let payload):
                    let now = ArrivalTime.now()
                    machine.noteActivity(now: now)
                    talking.values.first { $0.channel == channel }?.talker.take(payload, now: now)
                }
            }
        } catch {
            // The stream cannot be framed any more (or a limit was passed): say so and close.
            let answer = RTSPMessage(
                kind: .response(statusCode: 400, reason: "Bad Request"),
                headers: [("CSeq", "0"), ("Reason", error.reason)], body: [])
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer.serialized())), promise: nil)
            return close(context)
        }
        // What is left is a partial frame only when the loop stopped for want of bytes.
        deadlines.framed(whole: whole, partial: takesRequests(context) && framer.pendingBytes > 0, now: .now())
        armWakeUp(context: context)
    }

    func read(context: ChannelHandlerContext) {
        if takesRequests(context) {
            context.read()
        } else {
            readHeld = true
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        deadlines.writability(context.channel.isWritable, now: .now())
        armWakeUp(context: context)
        resume(context: context)
        context.fireChannelWritabilityChanged()
    }

    /// Takes what waited, and reads again, once requests are taken again.
    private func resume(context: ChannelHandlerContext) {
        guard takesRequests(context) else { return }
        takeRequests(context: context)
        if readHeld && takesRequests(context) {
            readHeld = false
            context.read()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        wakeUp.cancel()
        for (_, play) in playing { play.stop() }
        playing = [:]
        for session in talking.keys { stopTalking(session) }
        recordingSources = [:]
        _ = machine.close()
        countSessions()
        server.release(address)
        context.fireChannelInactive()
    }

    /// Tells the server how many sessions this connection now holds.
    private func countSessions() {
        server.countSessions(from: sessionsCounted, to: machine.sessionCount)
        sessionsCounted = machine.sessionCount
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        close(context)
    }

    private func close(_ context: ChannelHandlerContext) {
        guard !isClosing else { return }
        isClosing = true
        context.close(promise: nil)
    }

    private func carryOut(_ actions: [RTSPServerStateMachine.Action], context: ChannelHandlerContext) {
        defer { countSessions() }
        for action in actions {
            switch action {
            case .respond(let answer):
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer.serialized())), promise: nil)
            case .refuseAuthentication(let answer):
                refuse(answer, context: context)
            case .play(let play):
                start(play, context: context)
                startTalking(play, context: context)
            case .pause(let session):
                playing.removeValue(forKey: session)?.stop()
                stopTalking(session)
            case .teardown(let session):
                playing.removeValue(forKey: session)?.stop()
                stopTalking(session)
                recordingSources[session] = nil
            }
        }
    }

    /// A wrong answer to the challenge: its 401 is held as long as the server's throttle says for the address
    /// (nothing else is taken meanwhile), and the connection ends after too many.
    private func refuse(_ answer: RTSPMessage, context: ChannelHandlerContext) {
        server.metrics.authenticationFailures.increment()
        guard machine.authenticationFailures < server.configuration.maxAuthenticationFailures else {
            server.logger.debug(
                "closing a connection: \(machine.authenticationFailures) wrong answers to the challenge")
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer.serialized())), promise: nil)
            return close(context)
        }
        let delay = server.authenticationThrottle.withLock { $0.delay(afterFailureFrom: address, now: .now()) }
        guard delay > .zero else {
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer.serialized())), promise: nil)
            return
        }
        holdingAnswer = true
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: .nanoseconds(delay.nanosecondCount)) {
            let (handler, context) = loopBound.value
            handler.holdingAnswer = false
            guard !handler.isClosing else { return }
            context.writeAndFlush(handler.wrapOutboundOut(ByteBuffer(bytes: answer.serialized())), promise: nil)
            handler.resume(context: context)
        }
    }

    private func start(_ play: RTSPServerStateMachine.Play, context: ChannelHandlerContext) {
        playing.removeValue(forKey: play.session)?.stop()
        if let recording = server.recording(at: play.path) { return start(play, of: recording, context: context) }
        guard let source = server.source(at: play.path) else {
            return respond(404, "Not Found", to: play, context: context)
        }
        let channel = context.channel
        let answer = { (positions: [Int: (sequenceNumber: UInt16, rtpTime: UInt32)]) in
            channel.writeAndFlush(ByteBuffer(bytes: play.response(startingAt: positions).serialized()), promise: nil)
        }
        if case .multicast(let group, _, _)? = play.tracks.first?.transport {
            return join(group, of: source, play: play, answer: answer, context: context)
        }
        let subscriber = subscriber(for: play, of: source.formats, context: context)
        guard source.subscribe(subscriber, starting: answer) else {
            return respond(503, "Service Unavailable", to: play, context: context)
        }
        playing[play.session] = Playing(
            source: source, subscriber: subscriber, report: subscriber.report ?? report(for: play))
    }

    /// A multicast viewer: a member of the path's group, whose packets go out once for all its viewers.
    private func join(
        _ group: MulticastGroup, of source: MediaSource, play: RTSPServerStateMachine.Play,
        answer: ([Int: (sequenceNumber: UInt16, rtpTime: UInt32)]) -> Void, context: ChannelHandlerContext
    ) {
        // The group the SETUP answered must still be the path's: a path mounted again since answers anew.
        guard let multicast, server.multicastGroup(at: play.path) == group else {
            return respond(
                455, "Method Not Valid in This State", to: play, context: context,
                reason: "the path's multicast group changed since SETUP: set the session up again")
        }
        let report = report(for: play)
        let viewer = viewerName(play)
        guard multicast.join(viewer: viewer, group: group, source: source, report: report, starting: answer) else {
            return respond(503, "Service Unavailable", to: play, context: context)
        }
        playing[play.session] = Playing(report: report) {
            multicast.leave(viewer: viewer, group: group, source: source)
            return 0
        }
    }

    /// A viewer that set the backchannel up talks while it plays: its voice, on its interleaved channel or from its
    /// UDP port, goes to the path's talkback.
    private func startTalking(_ play: RTSPServerStateMachine.Play, context: ChannelHandlerContext) {
        stopTalking(play.session)
        guard playing[play.session] != nil, let track = play.tracks.first(where: \.isBackchannel),
            let talkback = server.talkback(at: play.path)
        else { return }
        let talker = Talker(talkback: talkback, viewer: viewerName(play))
        switch track.transport {
        case .interleaved(let rtp, _):
            talking[play.session] = (talker, rtp, nil)
        case .udp(let rtp, _):
            guard let from = try? context.channel.remoteAddress?.withPort(Int(rtp)) else { return }
            server.udpTalkers.add(talker, from: from)
            talking[play.session] = (talker, nil, from)
        case .multicast:
            return
        }
    }

    private func stopTalking(_ session: String) {
        guard let talk = talking.removeValue(forKey: session) else { return }
        if let address = talk.address { server.udpTalkers.remove(from: address) }
        talk.talker.leave()
    }

    /// A recording played to this session alone: a source of its own, fed from the keyframe at or before the range's
    /// start (in the file recorded then, of a timeline of several); the answer's range is where it starts, and
    /// RTP-Info the RTP time of that start.
    private func start(
        _ play: RTSPServerStateMachine.Play, of timeline: RecordingTimeline, context: ChannelHandlerContext
    ) {
        guard let (part, asked) = timeline.locate(play.range), asked < timeline.parts[part].duration else {
            return respond(457, "Invalid Range", to: play, context: context)
        }
        guard
            let source = try? MediaSource(
                formats: timeline.formats, continuing: recordingSources[play.session]?.streams())
        else {
            return respond(500, "Internal Server Error", to: play, context: context)
        }
        recordingSources[play.session] = source
        let recording = timeline.parts[part]
        let start = recording.start(at: asked)
        let subscriber = subscriber(for: play, of: timeline.formats, context: context)
        let channel = context.channel
        let scale = play.scale ?? 1
        let offsets = recording.firstUnitOffsets(from: start, scale: scale)
        let range = timeline.answeredRange(part: part, seconds: start, backwards: scale < 0)
        let subscribed = source.subscribe(subscriber) { positions in
            // A fresh source stamps each track's first unit with the RTP time it names here: the range's start is
            // that unit's distance before it.
            var atStart = positions
            for (track, position) in positions {
                atStart[track] = (position.sequenceNumber, position.rtpTime &- (offsets[track] ?? 0))
            }
            channel.writeAndFlush(
                ByteBuffer(bytes: play.response(startingAt: atStart, range: range).serialized()), promise: nil)
        }
        guard subscribed else { return respond(503, "Service Unavailable", to: play, context: context) }
        let pace = RecordingPlayback.Pace(
            scale: scale, rateControl: play.rateControl, speed: play.speed ?? 1,
            replay: play.onvifReplay ? play.cseqByte : nil, canonicalName: server.configuration.name,
            reportInterval: server.configuration.reportInterval)
        let feeding = Task {
            await timeline.play(from: part, at: start, pace: pace, into: source, viewer: subscriber)
        }
        playing[play.session] = Playing(
            source: source, subscriber: subscriber, report: subscriber.report ?? report(for: play), feeding: feeding)
    }

    /// The session's viewer: a writer per track it set up, over its connection or UDP, which tracks are video, and
    /// where its figures and events go.
    private func subscriber(
        for play: RTSPServerStateMachine.Play, of formats: [MediaFormat], context: ChannelHandlerContext
    ) -> Subscriber {
        let writers = Subscriber.writers(
            for: play.tracks, connection: context.channel, udp: udp, peer: context.channel.remoteAddress)
        return Subscriber(
            writers: writers, videoTracks: Set(formats.indices.filter { formats[$0].kind == .video }),
            report: report(for: play))
    }

    /// The session's viewer as a group and a talkback know it: its address and session.
    private func viewerName(_ play: RTSPServerStateMachine.Play) -> String { "\(address) \(play.session)" }

    /// Where the session's figures and events go.
    private func report(for play: RTSPServerStateMachine.Play) -> ViewerReport {
        ViewerReport(
            metrics: server.metrics.path(play.path), events: server.viewerEvents, path: play.path, address: address,
            session: play.session, transport: .init(play.tracks))
    }

    private func respond(
        _ status: Int, _ reason: String, to play: RTSPServerStateMachine.Play, context: ChannelHandlerContext,
        reason why: String? = nil
    ) {
        var answer = play.refusal(statusCode: status, reason: reason)
        if let why { answer.headers.append(("Reason", why)) }
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer.serialized())), promise: nil)
    }
}
