import RTP
import SDP

/// The RTSP client's logic, sans I/O (the swift-nio-ssh habit): events and the time go in, actions come
/// out, and the I/O layer carries them out. OPTIONS → DESCRIBE → SETUP (each video and audio track
/// offered, or those selected; an audio track the server refuses is left out) → PLAY, straight through or,
/// ``Configuration/stepwise``, waiting for the caller after DESCRIBE
/// and after SETUP; then
/// keepalives at half the session timeout (GET_PARAMETER when the server lists it, else OPTIONS; the next
/// method when a camera refuses one or leaves it unanswered, which never ends the session), and
/// TEARDOWN. Answers 401 with Basic or Digest (once, or once more when the nonce is stale), follows 3xx
/// redirects (never from rtsps to rtsp), falls back from UDP to TCP on 461, answers the server's own
/// requests, and fails with a typed error when the server stops answering.
@_spi(SansIO) public struct RTSPClientStateMachine: Sendable {
    public enum TransportMode: Sendable, Hashable {
        case tcpInterleaved
        /// RTP on `firstClientPort` + 2 × track index, RTCP on the port after, for the `portPairs` tracks
        /// that have ports bound: the others are left out (``RTSPClientStateMachine/tracksWithoutPorts``).
        case udp(firstClientPort: UInt16, portPairs: Int = 6)
        /// The server picks a multicast group and ports per track (`destination=`, `port=`).
        case multicast
    }

    public struct Configuration: Sendable {
        public var url: RTSPURL
        /// Credentials from the API; else those in the URL.
        public var credentials: Credentials?
        public var transport: TransportMode
        /// How long to wait for an answer (a keepalive's: no longer than the keepalive interval). Default 10 s.
        public var requestTimeout: Duration
        /// Stop after DESCRIBE (``Action/described(_:)``) until ``setup(tracks:now:)``, and after SETUP
        /// (``Action/setUp(_:)``) until ``play(now:)``. Default false: straight through to PLAY.
        public var stepwise: Bool
        /// Which of the offered tracks (indices into ``Action/described(_:)``'s list) to set up when not
        /// stepwise; nil: all of them.
        public var trackSelection: [Int]?
        /// The kinds of media offered: the session description's media sections of another kind are left
        /// out of ``RTSPClientStateMachine/tracks``, as are those of a codec this library does not take.
        /// Default: video and audio.
        public var mediaKinds: Set<MediaKind>
        /// The id of a session an earlier connection left on the server without a TEARDOWN it saw (the
        /// connection broke): TEARDOWN goes first, on this connection, so that the camera frees its slot; then
        /// the session starts, whatever the answer (or none within the request timeout).
        public var staleSession: String?
        /// With ``staleSession``: end once it is torn down (``Action/closed``) instead of starting a session.
        public var onlyTearsDownStaleSession: Bool
        /// Playing a recording: PLAY's range, scale, speed, rate control, ONVIF replay. Nil: live, from now.
        public var playback: PlaybackRequest?
        /// Headers added to every request the client sends, given its method (a vendor's token, a
        /// `User-Agent` a camera insists on). They never replace the client's own (`CSeq`, `Session`,
        /// `Authorization`, `Transport`, `Range`, `Require`, `Accept`, `Content-Length`).
        public var additionalHeaders: (@Sendable (RTSPMethod) -> [(name: String, value: String)])?
        /// Ask for the ONVIF audio backchannel (`Require: www.onvif.org/ver20/backchannel` on DESCRIBE, SETUP and
        /// PLAY): the camera's `a=sendonly` audio section is set up as a track the client sends on
        /// (``Track/isBackchannel``). Without it such sections are left out.
        public var backchannel: Bool = false

        public init(
            url: RTSPURL, credentials: Credentials? = nil, transport: TransportMode = .tcpInterleaved,
            requestTimeout: Duration = .seconds(10), stepwise: Bool = false, trackSelection: [Int]? = nil,
            staleSession: String? = nil, onlyTearsDownStaleSession: Bool = false,
            mediaKinds: Set<MediaKind> = [.video, .audio], playback: PlaybackRequest? = nil,
            additionalHeaders: (@Sendable (RTSPMethod) -> [(name: String, value: String)])? = nil,
            backchannel: Bool = false
        ) {
            self.backchannel = backchannel
            self.mediaKinds = mediaKinds
            self.url = url
            self.credentials = credentials ?? url.credentials
            self.transport = transport
            self.requestTimeout = requestTimeout
            self.stepwise = stepwise
            self.trackSelection = trackSelection
            self.staleSession = staleSession
            self.onlyTearsDownStaleSession = onlyTearsDownStaleSession
            self.playback = playback
            self.additionalHeaders = additionalHeaders
        }
    }

    /// A track being played: ``RTSPTrack``.
    public typealias Track = RTSPTrack

    public enum Action: Sendable {
        /// Send this request with this CSeq.
        case send(RTSPRequest, cseq: Int)
        /// Answer a request of the server: `status` for its `cseq`.
        case respond(status: Int, reason: String, cseq: Int)
        /// Stepwise: DESCRIBE was answered; these tracks are offered (no transport yet). Waits for
        /// ``RTSPClientStateMachine/setup(tracks:now:)``.
        case described([Track])
        /// Stepwise: every selected track is set up, with the transport the server agreed on. Waits for
        /// ``RTSPClientStateMachine/play(now:)`` (keepalives go on meanwhile).
        case setUp([Track])
        /// Multicast: join these tracks' groups (their transports name group and ports), then call
        /// ``RTSPClientStateMachine/multicastJoined(now:)``, which sends PLAY: joined after PLAY, the
        /// first packets, and the keyframe among them, would be missed.
        case joinMulticast([Track])
        /// Media flows now: the tracks and their transports.
        case playing([Track])
        /// PAUSE was answered: the server holds the media (keepalives go on).
        case paused
        /// PLAY after a pause was answered: media flows again.
        case resumed
        /// A PLAY with a new position (``RTSPClientStateMachine/seek(_:now:)``) was answered: media of the new
        /// position follows, from each track's RTP-Info (`rtpInfo`), where the server gave one.
        case seeked([Track])
        /// Call ``tick(now:)`` at this time (since the machine's clock origin).
        case wakeUp(at: ArrivalTime)
        /// Close this connection and start again at this URL.
        case redirect(RTSPURL)
        case failed(RTSPClientError)
        /// The session is over (TEARDOWN answered, or nothing to tear down).
        case closed
    }

    public let configuration: Configuration
    var state = State.idle
    // What holds in every state: the connection's requests, its answers to challenges, its keepalive method and
    // the transport it asks for (TCP after a 461).
    var cseq = 0
    var pending: (cseq: Int, request: RTSPRequest, sentAt: ArrivalTime)?
    var authentication = ClientAuthentication()
    var keepalive = KeepalivePolicy()
    var transport: TransportMode

    /// The server's session, once a SETUP has been answered.
    public var session: SessionHeader? { state.reached.session }
    /// The tracks set up (or being set up); after DESCRIBE and before SETUP, every track offered (of the
    /// ``Configuration/mediaKinds`` asked for, in a codec this library takes).
    public var tracks: [Track] { state.reached.tracks }
    /// Audio tracks whose SETUP the server refused, with its status: left out, the session goes on with
    /// the others (a camera whose audio is switched off answers so).
    public var refusedTracks: [(track: Track, status: Int)] {
        switch state.reached {
        case .nothing, .offered: []
        case .settingUp(let setUp): setUp.refused
        case .established(let established): established.refused
        }
    }
    /// Tracks offered and chosen that are not set up because they are more than the UDP port pairs bound
    /// for the session (``TransportMode/udp(firstClientPort:portPairs:)``): over TCP every track plays.
    public var tracksWithoutPorts: [Track] {
        switch state.reached {
        case .nothing, .offered: []
        case .settingUp(let setUp): setUp.withoutPorts
        case .established(let established): established.withoutPorts
        }
    }
    /// The DESCRIBE answer's session description, once it has arrived.
    public var sessionDescription: SessionDescription? { state.reached.description }
    /// The `Range` the server answered the latest PLAY with (where it actually starts: a recording's
    /// keyframe before the position asked for, say), as written; nil when it gave none.
    public var playedRange: String? {
        if case .established(let established) = state.reached { established.playedRange } else { nil }
    }
    /// The `Scale` the server answered the latest PLAY with (what it plays at); nil when it gave none.
    public var playedScale: Double? {
        if case .established(let established) = state.reached { established.playedScale } else { nil }
    }

    public init(configuration: Configuration) {
        self.configuration = configuration
        self.transport = configuration.transport
    }

    /// Begins with OPTIONS (after the TEARDOWN of a ``Configuration/staleSession``).
    public mutating func start(now: ArrivalTime) -> [Action] {
        // Once only, and never after the end: a session torn down before it started (through the HTTP
        // tunnel, the machine starts when the GET is answered, which may be after the caller ended it) sends
        // nothing more.
        guard state.isIdle else { return [] }
        if let stale = configuration.staleSession {
            state = .clearingStale
            return send(RTSPRequest(method: .teardown, url: configuration.url, headers: ["Session": stale]), now: now)
        }
        return sendOptions(now: now)
    }

    private mutating func sendOptions(now: ArrivalTime) -> [Action] {
        state = .options
        return send(RTSPRequest(method: .options, url: configuration.url), now: now)
    }

    /// The stale session's TEARDOWN was answered, refused or not answered in time: it was worth a try, and
    /// the session starts (or, when that was all, ends).
    mutating func afterStaleTeardown(now: ArrivalTime) -> [Action] {
        pending = nil
        authentication.answered()
        guard !configuration.onlyTearsDownStaleSession else {
            state = .done(.nothing)
            return [.closed]
        }
        return sendOptions(now: now)
    }

    /// Handles a message from the server.
    public mutating func receive(_ message: RTSPMessage, now: ArrivalTime) -> [Action] {
        switch message.kind {
        case .request(let method, _):
            let supported = [RTSPMethod.options, .getParameter, .setParameter].contains(RTSPMethod(method))
            return [
                .respond(
                    status: supported ? 200 : 501, reason: supported ? "OK" : "Not Implemented", cseq: message.cseq ?? 0
                )
            ]
        case .response(let status, let reason):
            // Stale, unsolicited, or after the end (no answer restarts a session that is over).
            guard !state.isDone, let (sent, request, _) = pending, message.cseq == sent else { return [] }
            pending = nil
            return response(status: status, reason: reason, message: message, to: request, now: now)
        }
    }

    /// Whether `request` is a keepalive: its answer, or its silence, is no reason to end the session (the
    /// session lives by its media; the inactivity timeout watches that).
    func isKeepalive(_ request: RTSPRequest) -> Bool {
        state.keepaliveDue != nil && KeepalivePolicy.methods.contains(request.method)
            && request.headers["Session"] != nil
    }

    /// Time passes: timeouts and keepalives.
    public mutating func tick(now: ArrivalTime) -> [Action] {
        if state.isClearingStale, let (_, _, sentAt) = pending, now - sentAt >= configuration.requestTimeout {
            return afterStaleTeardown(now: now)
        }
        if let (_, request, sentAt) = pending, isKeepalive(request), now - sentAt >= answerTimeout(of: request) {
            // GW4089IP never answers GET_PARAMETER: the session goes on, and the next keepalive is another method.
            pending = nil
            keepalive.refused(request.method)
        }
        if let (_, request, sentAt) = pending, now - sentAt >= configuration.requestTimeout {
            pending = nil
            state = .done(state.reached)
            if request.method == .teardown { return [.closed] }
            return [
                .failed(
                    RTSPClientError(
                        .timeout,
                        "the RTSP server did not answer \(request.method) within \(configuration.requestTimeout)"))
            ]
        }
        guard let due = state.keepaliveDue, now >= due, pending == nil, case .established(var established) = state
        else {
            return pending.map { [.wakeUp(at: $0.sentAt + answerTimeout(of: $0.request))] } ?? []
        }
        let session = established.session
        established.keepalive = now + session.keepaliveInterval
        state = .established(established)
        return send(
            RTSPRequest(method: keepalive.method, url: configuration.url, headers: ["Session": session.id]), now: now)
            + [.wakeUp(at: now + session.keepaliveInterval)]
    }

    /// Stepwise, after ``Action/described(_:)``: sets up the offered tracks at `selection` (indices into
    /// that list; nil: all), in the order offered. Nothing happens in another state; a selection that
    /// names no offered track fails the session with `.noPlayableTrack`.
    public mutating func setup(tracks selection: [Int]?, now: ArrivalTime) -> [Action] {
        guard case .described(let offer) = state else { return [] }
        return startSetup(offer, selection: selection, now: now)
    }

    /// Stepwise, after ``Action/setUp(_:)``: PLAY; ``Action/playing(_:)`` follows its answer. Nothing
    /// happens in another state.
    public mutating func play(now: ArrivalTime) -> [Action] {
        guard case .established(let established) = state, established.step == .ready, pending == nil else {
            return []
        }
        return sendPlay(established, now: now)
    }

    mutating func startSetup(_ offer: Offer, selection: [Int]?, now: ArrivalTime) -> [Action] {
        var setUp = SetUp(description: offer.description, tracks: offer.tracks)
        if let selection {
            let chosen = Set(selection)
            setUp.tracks = offer.tracks.indices.filter { chosen.contains($0) }.map { offer.tracks[$0] }
            guard !setUp.tracks.isEmpty else {
                return fail(
                    RTSPClientError(.noPlayableTrack, "the selected tracks \(selection) are none of those offered"))
            }
        }
        // Over UDP, ports were bound for so many tracks before DESCRIBE said how many there are: SETUP
        // must never name a port nobody listens on.
        if case .udp(_, let pairs) = transport, setUp.tracks.count > pairs {
            setUp.withoutPorts = Array(setUp.tracks[max(0, pairs)...])
            setUp.tracks = Array(setUp.tracks.prefix(max(0, pairs)))
            guard !setUp.tracks.isEmpty else {
                return fail(RTSPClientError(.unsupported, "no UDP ports were bound for the tracks: use TCP"))
            }
        }
        state = .settingUp(setUp, index: 0)
        return setupNext(now: now)
    }

    /// PLAY, or first (multicast) the groups to join.
    mutating func sendPlay(_ established: Established, now: ArrivalTime) -> [Action] {
        var established = established
        if transport == .multicast, established.step != .joiningMulticast,
            established.tracks.contains(where: { $0.transport?.isMulticast == true })
        {
            established.step = .joiningMulticast
            state = .established(established)
            return [.joinMulticast(established.tracks)]
        }
        established.step = .starting
        state = .established(established)
        return send(playRequest(established, playback: configuration.playback ?? PlaybackRequest()), now: now)
    }

    private func playRequest(_ established: Established, playback: PlaybackRequest) -> RTSPRequest {
        var request = RTSPRequest(
            method: .play, url: configuration.url, headers: ["Session": established.session.id])
        for (name, value) in playback.playHeaders { request.headers[name] = value }
        // A live PLAY with a backchannel set up goes without a Range, as ONVIF's examples do: gst-rtsp-server's
        // ONVIF media answers 503 to `Range: npt=0.000-` then (its backchannel cannot seek).
        if configuration.playback == nil, established.tracks.contains(where: \.isBackchannel) {
            request.headers["Range"] = nil
        }
        return request
    }

    /// Plays from another position (a new `Range`, and scale or speed) while playing or paused: PLAY with
    /// `playback`'s headers; ``Action/seeked(_:)`` follows its answer. Nothing happens in another state.
    public mutating func seek(_ playback: PlaybackRequest, now: ArrivalTime) -> [Action] {
        guard pending == nil, case .established(var established) = state,
            [.playing, .paused].contains(established.step)
        else { return [] }
        established.step = .seeking
        state = .established(established)
        return send(playRequest(established, playback: playback), now: now)
    }

    /// The multicast groups of ``Action/joinMulticast(_:)`` are joined: PLAY goes now. Nothing happens
    /// unless the machine waits for that.
    public mutating func multicastJoined(now: ArrivalTime) -> [Action] {
        guard case .established(let established) = state, established.step == .joiningMulticast else { return [] }
        return sendPlay(established, now: now)
    }

    /// Asks the server to hold the media (PAUSE); ``Action/paused`` follows its answer. Nothing happens
    /// unless the session is playing.
    public mutating func pause(now: ArrivalTime) -> [Action] {
        // A pending keepalive's answer is then ignored.
        step(from: .playing, to: .pausing, sending: .pause, now: now)
    }

    /// Resumes a paused session (PLAY without a range: from where it paused, RFC 2326 section 10.5);
    /// ``Action/resumed`` follows its answer. Nothing happens unless the session is paused.
    public mutating func resume(now: ArrivalTime) -> [Action] {
        step(from: .paused, to: .resuming, sending: .play, now: now)
    }

    /// `method` on the session, when it is at step `from`; it is at `to` until the answer.
    private mutating func step(from: Step, to: Step, sending method: RTSPMethod, now: ArrivalTime) -> [Action] {
        guard case .established(var established) = state, established.step == from else { return [] }
        established.step = to
        state = .established(established)
        return send(
            RTSPRequest(method: method, url: configuration.url, headers: ["Session": established.session.id]),
            now: now)
    }

    /// Ends the session: TEARDOWN when there is one.
    public mutating func teardown(now: ArrivalTime) -> [Action] {
        let reached = state.reached
        guard let session = reached.session, !state.isDone else {
            state = .done(reached)
            pending = nil  // what was asked before the session existed is not waited for
            return [.closed]
        }
        state = .tearingDown(reached)
        return send(RTSPRequest(method: .teardown, url: configuration.url, headers: ["Session": session.id]), now: now)
    }

    mutating func send(_ request: RTSPRequest, now: ArrivalTime) -> [Action] {
        var request = request
        // PLAY's comes with its playback request's headers (``PlaybackRequest/playHeaders``).
        if configuration.playback?.onvifReplay == true, [.describe, .setup].contains(request.method) {
            request.headers["Require"] = "onvif-replay"
        }
        if configuration.backchannel, [.describe, .setup, .play].contains(request.method) {
            request.headers["Require"] = [request.headers["Require"], Self.backchannelRequirement].compactMap { $0 }
                .joined(separator: ", ")
        }
        for (name, value) in configuration.additionalHeaders?(request.method) ?? []
        where request.headers[name] == nil && !Self.ownHeaders.contains(name.lowercased()) {
            request.headers[name] = value
        }
        if let authorization = authentication.authorization(for: request) {
            request.headers["Authorization"] = authorization
        }
        cseq += 1
        pending = (cseq, request, now)
        return [.send(request, cseq: cseq), .wakeUp(at: now + answerTimeout(of: request))]
    }

    /// How long `request`'s answer is waited for: ``Configuration/requestTimeout``, and for a keepalive no longer
    /// than the keepalive interval, so that a camera that leaves one method unanswered gets the next before its
    /// session times out (a 2 s session timeout, and a 10 s request timeout, would otherwise outlive it).
    func answerTimeout(of request: RTSPRequest) -> Duration {
        guard isKeepalive(request), case .established(let established) = state else {
            return configuration.requestTimeout
        }
        return min(configuration.requestTimeout, established.session.keepaliveInterval)
    }

    /// The `Require` option tag of the ONVIF audio backchannel.
    public static let backchannelRequirement = "www.onvif.org/ver20/backchannel"

    /// Headers the client writes itself, which ``Configuration/additionalHeaders`` cannot replace.
    static let ownHeaders: Set<String> = [
        "cseq", "session", "authorization", "transport", "range", "content-length", "require", "accept",
    ]

    mutating func fail(_ error: RTSPClientError) -> [Action] {
        state = .done(state.reached)
        return [.failed(error)]
    }
}
