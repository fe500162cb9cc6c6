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
        /// How long to wait for an answer. Default 10 s.
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
        case wakeUp(at: Duration)
        /// Close this connection and start again at this URL.
        case redirect(RTSPURL)
        case failed(RTSPClientError)
        /// The session is over (TEARDOWN answered, or nothing to tear down).
        case closed
    }

    /// Where the session is, with what only that step needs.
    enum State: Sendable, Equatable {
        case idle, clearingStale, options, describe, described
        /// SETUP of `tracks[index]` is under way.
        case setup(index: Int)
        /// Stepwise: every track is set up, PLAY waits for the caller; a keepalive is due at `keepalive`.
        case ready(keepalive: Duration)
        case joiningMulticast, play
        case playing(keepalive: Duration)
        case pausing(keepalive: Duration)
        case paused(keepalive: Duration)
        case resuming(keepalive: Duration)
        /// A PLAY with a new position is under way (sent while playing or paused).
        case seeking(keepalive: Duration)
        case tearingDown, done

        /// When the next keepalive is due, in the states that send them (set up, playing, paused).
        var keepaliveDue: Duration? {
            switch self {
            case .ready(let due), .playing(let due), .paused(let due): due
            default: nil
            }
        }

        /// The same state with its next keepalive due at `due`.
        func keepalive(at due: Duration) -> State {
            switch self {
            case .ready: .ready(keepalive: due)
            case .playing: .playing(keepalive: due)
            case .paused: .paused(keepalive: due)
            default: self
            }
        }
    }

    public let configuration: Configuration
    private var state = State.idle
    private var cseq = 0
    private var pending: (cseq: Int, request: RTSPRequest, sentAt: Duration)?
    private var authentication = ClientAuthentication()
    private var keepalive = KeepalivePolicy()
    private var transport: TransportMode
    public private(set) var session: SessionHeader?
    /// The tracks set up (or being set up); after DESCRIBE and before SETUP, every track offered (of the
    /// ``Configuration/mediaKinds`` asked for, in a codec this library takes).
    public private(set) var tracks: [Track] = []
    /// Audio tracks whose SETUP the server refused, with its status: left out, the session goes on with
    /// the others (a camera whose audio is switched off answers so).
    public private(set) var refusedTracks: [(track: Track, status: Int)] = []
    /// Tracks offered and chosen that are not set up because they are more than the UDP port pairs bound
    /// for the session (``TransportMode/udp(firstClientPort:portPairs:)``): over TCP every track plays.
    public private(set) var tracksWithoutPorts: [Track] = []
    /// The DESCRIBE answer's session description, once it has arrived.
    public private(set) var sessionDescription: SessionDescription?
    /// The `Range` the server answered the latest PLAY with (where it actually starts: a recording's
    /// keyframe before the position asked for, say), as written; nil when it gave none.
    public private(set) var playedRange: String?
    /// The `Scale` the server answered the latest PLAY with (what it plays at); nil when it gave none.
    public private(set) var playedScale: Double?

    public init(configuration: Configuration) {
        self.configuration = configuration
        self.transport = configuration.transport
    }

    /// Begins with OPTIONS (after the TEARDOWN of a ``Configuration/staleSession``).
    public mutating func start(now: Duration) -> [Action] {
        // Once only, and never after the end: a session torn down before it started (through the HTTP
        // tunnel, the machine starts when the GET is answered, which may be after the caller ended it) sends
        // nothing more.
        guard state == .idle else { return [] }
        if let stale = configuration.staleSession {
            state = .clearingStale
            return send(RTSPRequest(method: .teardown, url: configuration.url, headers: ["Session": stale]), now: now)
        }
        return sendOptions(now: now)
    }

    private mutating func sendOptions(now: Duration) -> [Action] {
        state = .options
        return send(RTSPRequest(method: .options, url: configuration.url), now: now)
    }

    /// The stale session's TEARDOWN was answered, refused or not answered in time: it was worth a try, and
    /// the session starts (or, when that was all, ends).
    private mutating func afterStaleTeardown(now: Duration) -> [Action] {
        pending = nil
        authentication.answered()
        guard !configuration.onlyTearsDownStaleSession else {
            state = .done
            return [.closed]
        }
        return sendOptions(now: now)
    }

    /// Handles a message from the server.
    public mutating func receive(_ message: RTSPMessage, now: Duration) -> [Action] {
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
            guard state != .done, let (sent, request, _) = pending, message.cseq == sent else { return [] }
            pending = nil
            return response(status: status, reason: reason, message: message, to: request, now: now)
        }
    }

    /// Whether `request` is a keepalive: its answer, or its silence, is no reason to end the session (the
    /// session lives by its media; the inactivity timeout watches that).
    private func isKeepalive(_ request: RTSPRequest) -> Bool {
        state.keepaliveDue != nil && KeepalivePolicy.methods.contains(request.method)
            && request.headers["Session"] != nil
    }

    /// Time passes: timeouts and keepalives.
    public mutating func tick(now: Duration) -> [Action] {
        if state == .clearingStale, let (_, _, sentAt) = pending, now - sentAt >= configuration.requestTimeout {
            return afterStaleTeardown(now: now)
        }
        if let (_, request, sentAt) = pending, now - sentAt >= configuration.requestTimeout, isKeepalive(request) {
            // GW4089IP never answers GET_PARAMETER: the session goes on, and the next keepalive is another method.
            pending = nil
            keepalive.refused(request.method)
        }
        if let (_, request, sentAt) = pending, now - sentAt >= configuration.requestTimeout {
            pending = nil
            state = .done
            if request.method == .teardown { return [.closed] }
            return [
                .failed(
                    RTSPClientError(
                        .timeout,
                        "the RTSP server did not answer \(request.method) within \(configuration.requestTimeout)"))
            ]
        }
        guard let due = state.keepaliveDue, now >= due, pending == nil, let session else {
            return pending.map { [.wakeUp(at: $0.sentAt + configuration.requestTimeout)] } ?? []
        }
        state = state.keepalive(at: now + session.keepaliveInterval)
        return send(
            RTSPRequest(method: keepalive.method, url: configuration.url, headers: ["Session": session.id]), now: now)
            + [.wakeUp(at: now + session.keepaliveInterval)]
    }

    /// Stepwise, after ``Action/described(_:)``: sets up the offered tracks at `selection` (indices into
    /// that list; nil: all), in the order offered. Nothing happens in another state; a selection that
    /// names no offered track fails the session with `.noPlayableTrack`.
    public mutating func setup(tracks selection: [Int]?, now: Duration) -> [Action] {
        guard state == .described else { return [] }
        return startSetup(selection, now: now)
    }

    /// Stepwise, after ``Action/setUp(_:)``: PLAY; ``Action/playing(_:)`` follows its answer. Nothing
    /// happens in another state.
    public mutating func play(now: Duration) -> [Action] {
        guard case .ready = state, pending == nil else { return [] }
        return sendPlay(now: now)
    }

    private mutating func startSetup(_ selection: [Int]?, now: Duration) -> [Action] {
        if let selection {
            let chosen = Set(selection)
            tracks = tracks.indices.filter { chosen.contains($0) }.map { tracks[$0] }
            guard !tracks.isEmpty else {
                return fail(
                    RTSPClientError(.noPlayableTrack, "the selected tracks \(selection) are none of those offered"))
            }
        }
        // Over UDP, ports were bound for so many tracks before DESCRIBE said how many there are: SETUP
        // must never name a port nobody listens on.
        if case .udp(_, let pairs) = transport, tracks.count > pairs {
            tracksWithoutPorts = Array(tracks[max(0, pairs)...])
            tracks = Array(tracks.prefix(max(0, pairs)))
            guard !tracks.isEmpty else {
                return fail(RTSPClientError(.unsupported, "no UDP ports were bound for the tracks: use TCP"))
            }
        }
        state = .setup(index: 0)
        return setupNext(now: now)
    }

    private mutating func sendPlay(now: Duration) -> [Action] {
        guard let session else {
            return fail(RTSPClientError(.protocolViolation, "no Session to play: SETUP gave none"))
        }
        if transport == .multicast, state != .joiningMulticast,
            tracks.contains(where: { $0.transport?.isMulticast == true })
        {
            state = .joiningMulticast
            return [.joinMulticast(tracks)]
        }
        state = .play
        return send(playRequest(session: session, playback: configuration.playback ?? PlaybackRequest()), now: now)
    }

    private func playRequest(session: SessionHeader, playback: PlaybackRequest) -> RTSPRequest {
        var request = RTSPRequest(method: .play, url: configuration.url, headers: ["Session": session.id])
        for (name, value) in playback.playHeaders { request.headers[name] = value }
        // A live PLAY with a backchannel set up goes without a Range, as ONVIF's examples do: gst-rtsp-server's
        // ONVIF media answers 503 to `Range: npt=0.000-` then (its backchannel cannot seek).
        if configuration.playback == nil, tracks.contains(where: \.isBackchannel) { request.headers["Range"] = nil }
        return request
    }

    /// Plays from another position (a new `Range`, and scale or speed) while playing or paused: PLAY with
    /// `playback`'s headers; ``Action/seeked(_:)`` follows its answer. Nothing happens in another state.
    public mutating func seek(_ playback: PlaybackRequest, now: Duration) -> [Action] {
        guard let session, pending == nil else { return [] }
        switch state {
        case .playing(let keepalive), .paused(let keepalive): state = .seeking(keepalive: keepalive)
        default: return []
        }
        return send(playRequest(session: session, playback: playback), now: now)
    }

    /// The multicast groups of ``Action/joinMulticast(_:)`` are joined: PLAY goes now. Nothing happens
    /// unless the machine waits for that.
    public mutating func multicastJoined(now: Duration) -> [Action] {
        guard state == .joiningMulticast else { return [] }
        return sendPlay(now: now)
    }

    /// Asks the server to hold the media (PAUSE); ``Action/paused`` follows its answer. Nothing happens
    /// unless the session is playing.
    public mutating func pause(now: Duration) -> [Action] {
        // A pending keepalive's answer is then ignored.
        guard case .playing(let keepalive) = state, let session else { return [] }
        state = .pausing(keepalive: keepalive)
        return send(RTSPRequest(method: .pause, url: configuration.url, headers: ["Session": session.id]), now: now)
    }

    /// Resumes a paused session (PLAY without a range: from where it paused, RFC 2326 section 10.5);
    /// ``Action/resumed`` follows its answer. Nothing happens unless the session is paused.
    public mutating func resume(now: Duration) -> [Action] {
        guard case .paused(let keepalive) = state, let session else { return [] }
        state = .resuming(keepalive: keepalive)
        return send(RTSPRequest(method: .play, url: configuration.url, headers: ["Session": session.id]), now: now)
    }

    /// Ends the session: TEARDOWN when there is one.
    public mutating func teardown(now: Duration) -> [Action] {
        guard let session, state != .done else {
            state = .done
            pending = nil  // what was asked before the session existed is not waited for
            return [.closed]
        }
        state = .tearingDown
        return send(RTSPRequest(method: .teardown, url: configuration.url, headers: ["Session": session.id]), now: now)
    }

    private mutating func send(_ request: RTSPRequest, now: Duration) -> [Action] {
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
        return [.send(request, cseq: cseq), .wakeUp(at: now + configuration.requestTimeout)]
    }

    /// The `Require` option tag of the ONVIF audio backchannel.
    public static let backchannelRequirement = "www.onvif.org/ver20/backchannel"

    /// Headers the client writes itself, which ``Configuration/additionalHeaders`` cannot replace.
    static let ownHeaders: Set<String> = [
        "cseq", "session", "authorization", "transport", "range", "content-length", "require", "accept",
    ]

    private mutating func fail(_ error: RTSPClientError) -> [Action] {
        state = .done
        return [.failed(error)]
    }

    /// An answer to `request`: what any state does with a 401, a refused keepalive, a redirect or a refusal,
    /// then what the state the session is in does with a success (one handler per state below).
    private mutating func response(
        status: Int, reason: String, message: RTSPMessage, to request: RTSPRequest, now: Duration
    )
        -> [Action]
    {
        if status == 401 { return unauthorized(message, request: request, now: now) }
        if state == .clearingStale { return afterStaleTeardown(now: now) }  // 200, or 454 from a server that restarted
        if !(200...299).contains(status), isKeepalive(request) {
            // Refused (SET_PARAMETER with 400, a 3xx, a 5xx): never an end, another method next time.
            keepalive.refused(request.method)
            return []
        }
        if (300...399).contains(status) { return redirected(status: status, message: message) }
        guard (200...299).contains(status) else {
            return refused(status: status, reason: reason, request: request, now: now)
        }
        authentication.answered()
        switch state {
        case .options: return optionsAnswered(message, now: now)
        case .describe: return describeAnswered(message, now: now)
        case .setup(let index): return setupAnswered(index, message, now: now)
        case .play:
            noteRTPInfo(message)
            let interval = session?.keepaliveInterval ?? SessionHeader.defaultTimeout / 2
            state = .playing(keepalive: now + interval)
            return [.playing(tracks), .wakeUp(at: now + interval)]
        case .seeking(let keepalive):
            for index in tracks.indices { tracks[index].rtpInfo = nil }
            noteRTPInfo(message)
            state = .playing(keepalive: keepalive)
            return [.seeked(tracks)]
        case .tearingDown:
            state = .done
            return [.closed]
        case .pausing(let keepalive):
            state = .paused(keepalive: keepalive)
            return [.paused]
        case .resuming(let keepalive):
            state = .playing(keepalive: keepalive)
            return [.resumed]
        case .playing, .paused, .idle, .done, .described, .ready, .clearingStale, .joiningMulticast:
            return []
        }
    }

    /// A 3xx: the session starts again at its Location, never from rtsps down to rtsp.
    private mutating func redirected(status: Int, message: RTSPMessage) -> [Action] {
        guard let location = message.header("Location"), let target = try? RTSPURL(location) else {
            return fail(
                RTSPClientError(.protocolViolation, "redirect \(status) without a usable Location", status: status))
        }
        if configuration.url.isSecure && !target.isSecure {
            return fail(
                RTSPClientError(.refusedRedirect, "refused a redirect from rtsps to rtsp (\(target))", status: status))
        }
        state = .done
        return [.redirect(target)]
    }

    /// A 4xx or 5xx: SETUP asks for TCP after a 461, a refused audio track is left out, TEARDOWN ends anyway;
    /// anything else ends the session, saying what the status means where a user can act on it.
    private mutating func refused(status: Int, reason: String, request: RTSPRequest, now: Duration) -> [Action] {
        if status == 461, request.method == .setup, transport != .tcpInterleaved {
            transport = .tcpInterleaved  // the server does not do UDP (or multicast): ask for TCP instead
            return setupNext(now: now)
        }
        if case .setup(let index) = state, tracks[index].format.kind == .audio, !tracks[index].isBackchannel,
            tracks.count > 1
        {
            // A camera with its audio switched off refuses the audio track: play the others.
            refusedTracks.append((tracks.remove(at: index), status))
            if index < tracks.count { return setupNext(now: now) }  // the next track is at the same index now
            return setupDone(now: now)
        }
        if state == .tearingDown {
            state = .done
            return [.closed]
        }
        if status == 404 {
            return fail(
                RTSPClientError(
                    .notFound,
                    "the RTSP server answered \(request.method) with 404 \(reason): it has no stream at "
                        + "\(configuration.url.path); check the URL's path (cameras name their streams differently)",
                    status: status))
        }
        if status == 551, let required = request.headers["Require"] {
            return fail(
                RTSPClientError(
                    .unsupported,
                    "the RTSP server answered \(request.method) with 551 \(reason): it does not support \(required) "
                        + "(Require); play it without asking for that ("
                        + (required.firstRange(of: Self.backchannelRequirement) != nil
                            ? "the camera has no ONVIF audio backchannel, or not on this stream)"
                            : "onvifReplay false, no --onvif-replay)"),
                    status: status))
        }
        return fail(
            RTSPClientError(
                .serverError, "the RTSP server answered \(request.method) with \(status) \(reason)", status: status))
    }

    /// OPTIONS answered: the keepalive method from what `Public` lists, then DESCRIBE.
    private mutating func optionsAnswered(_ message: RTSPMessage, now: Duration) -> [Action] {
        keepalive.serverSupports(
            Set((message.header("Public") ?? "").split(separator: ",").map { RTSPMethod($0.trimmingCharacters()) }))
        state = .describe
        return send(
            RTSPRequest(method: .describe, url: configuration.url, headers: ["Accept": "application/sdp"]), now: now)
    }

    /// DESCRIBE answered: the tracks offered (of the kinds asked for, in a codec this library takes), then
    /// SETUP (or, stepwise, the caller's choice).
    private mutating func describeAnswered(_ message: RTSPMessage, now: Duration) -> [Action] {
        let description: SessionDescription
        do {
            description = try SessionDescription(String(decoding: message.body, as: UTF8.self))
        } catch {
            return fail(
                RTSPClientError(
                    .protocolViolation, "the DESCRIBE answer holds no valid session description (\(error))"))
        }
        // Control URLs resolve against Content-Base, else Content-Location, else the request URL.
        let base =
            [message.header("Content-Base"), message.header("Content-Location")].compactMap { $0 }
            .compactMap { Self.baseURL($0, requested: configuration.url) }.first ?? configuration.url
        let sessionBase = description.control.map { base.resolving($0) } ?? base
        sessionDescription = description
        tracks = description.media.compactMap { media in
            // ONVIF's backchannel: the section the client sends on says a=sendonly (ONVIF Streaming
            // Specification 5.3; gst-rtsp-server's ONVIF media marks it so, and its other tracks recvonly).
            let isBackchannel = media.isBackchannel
            guard !isBackchannel || configuration.backchannel else { return nil }
            return media.mediaFormat.flatMap {
                isBackchannel
                    ? ($0.kind == .audio ? $0 : nil) : configuration.mediaKinds.contains($0.kind) ? $0 : nil
            }.map {
                Track(
                    control: sessionBase.resolving(media.control ?? "*"), format: $0, transport: nil,
                    isSecure: media.transportProtocol.uppercased().firstRange(of: "SAVP") != nil,
                    cryptoAttributes: media.cryptoAttributes, isBackchannel: isBackchannel)
            }
        }
        // The backchannel after the tracks the camera sends: those are 0..<n whatever the SDP's order, so that an
        // application's source of them (a relay's) keeps the session's track numbers.
        tracks = tracks.filter { !$0.isBackchannel } + tracks.filter(\.isBackchannel)
        guard !tracks.isEmpty else {
            let kinds = MediaKind.allCases.filter(configuration.mediaKinds.contains)
            let codecs = kinds.map { $0 == .video ? "H.264 or H.265" : "AAC, G.711, L16 or Opus" }
            return fail(
                RTSPClientError(
                    .noPlayableTrack,
                    "the session description offers no \(kinds.map(\.rawValue).joined(separator: " or ")) track "
                        + "this library plays (\(codecs.joined(separator: "; ")))"))
        }
        if configuration.stepwise {
            state = .described
            return [.described(tracks)]
        }
        return startSetup(configuration.trackSelection, now: now)
    }

    /// SETUP of `tracks[index]` answered: its transport, and the session's, then the next track or PLAY.
    private mutating func setupAnswered(_ index: Int, _ message: RTSPMessage, now: Duration) -> [Action] {
        guard let value = message.header("Session"), let header = SessionHeader(value) else {
            return fail(RTSPClientError(.protocolViolation, "the SETUP answer has no Session header"))
        }
        session = session ?? header
        let transport = message.header("Transport").map(TransportHeader.init)
        tracks[index].transport = transport
        tracks[index].announcedSSRCs = (transport?.ssrcReadings ?? []).subtracting([0])
        guard index + 1 < tracks.count else { return setupDone(now: now) }
        state = .setup(index: index + 1)
        return setupNext(now: now)
    }

    /// A PLAY answer's RTP-Info (each track's first sequence number and RTP time) and Range.
    private mutating func noteRTPInfo(_ message: RTSPMessage) {
        playedRange = message.header("Range")
        playedScale = message.header("Scale").flatMap { Double($0.trimmingCharacters()) }.flatMap {
            $0.isFinite ? $0 : nil
        }
        guard let value = message.header("RTP-Info") else { return }
        let entries = RTPInfo(value).entries(for: tracks.map(\.control), base: configuration.url)
        for (index, entry) in entries.enumerated() {
            guard let entry else { continue }
            tracks[index].rtpInfo = entry
            tracks[index].announcedSSRCs.formUnion(entry.ssrcs.subtracting([0]))
        }
    }

    /// A Content-Base or Content-Location as cameras write it: an absolute URL; a path alone (`/live/`),
    /// taken on the requested server; or a URL without its scheme (`192.168.1.10:554/live/`), given the
    /// requested one. Nil for an empty value.
    static func baseURL(_ value: String, requested: RTSPURL) -> RTSPURL? {
        let text = value.trimmingCharacters()
        guard !text.isEmpty else { return nil }
        if let absolute = try? RTSPURL(text) { return requested.resolving(absolute.description) }
        if text.hasPrefix("/") { return requested.resolving(text) }
        let scheme = requested.isSecure ? "rtsps://" : "rtsp://"
        guard text.firstRange(of: "://") == nil, let schemeless = try? RTSPURL(scheme + text) else { return nil }
        return requested.resolving(schemeless.description)
    }

    /// Every track is set up: PLAY, or (stepwise) wait for ``play(now:)`` with keepalives.
    private mutating func setupDone(now: Duration) -> [Action] {
        guard configuration.stepwise else { return sendPlay(now: now) }
        let interval = session?.keepaliveInterval ?? SessionHeader.defaultTimeout / 2
        state = .ready(keepalive: now + interval)
        return [.setUp(tracks), .wakeUp(at: now + interval)]
    }

    /// SETUP of the track the state names.
    private mutating func setupNext(now: Duration) -> [Action] {
        guard case .setup(let index) = state, tracks.indices.contains(index) else { return [] }
        let offer: TransportHeader
        let profile = tracks[index].isSecure ? "RTP/SAVP" : "RTP/AVP"
        switch transport {
        case .tcpInterleaved:
            let channel = UInt8(truncatingIfNeeded: index * 2)  // at most SessionDescription.maxMedia (32) tracks
            offer = TransportHeader(profile: profile + "/TCP", interleavedChannels: (channel, channel &+ 1))
        case .udp(let first, _):
            let port = UInt16(truncatingIfNeeded: Int(first) + index * 2)
            offer = TransportHeader(profile: profile, clientPorts: (port, port &+ 1))
        case .multicast:
            offer = TransportHeader(profile: profile, isMulticast: true)
        }
        var headers = ["Transport": offer.serialized()]
        if let session { headers["Session"] = session.id }
        return send(RTSPRequest(method: .setup, url: tracks[index].control, headers: headers), now: now)
    }

    private mutating func unauthorized(_ message: RTSPMessage, request: RTSPRequest, now: Duration) -> [Action] {
        let denied = RTSPClientError(
            .unauthorized,
            configuration.credentials == nil
                ? "401 Unauthorized from \(configuration.url.origin): it wants a user name and password"
                : "401 Unauthorized from \(configuration.url.origin): it refused the user name and password; check them",
            status: 401)
        // A stale session the server will not let go of without credentials it does not take: left to its timeout.
        guard let credentials = configuration.credentials else {
            return state == .clearingStale ? afterStaleTeardown(now: now) : fail(denied)
        }
        let values = message.headers.filter { $0.name.lowercased() == "www-authenticate" }.map(\.value)
        guard let challenges = try? AuthenticationChallenge.parse(values),
            let challenge = AuthenticationChallenge.strongest(challenges)
        else {
            if state == .clearingStale { return afterStaleTeardown(now: now) }
            return fail(
                RTSPClientError(.protocolViolation, "401 without a challenge this client can answer", status: 401))
        }
        guard authentication.challenged(challenge, credentials: credentials) else {
            return state == .clearingStale ? afterStaleTeardown(now: now) : fail(denied)
        }
        var retry = request
        retry.headers["Authorization"] = nil
        return send(retry, now: now)
    }
}
