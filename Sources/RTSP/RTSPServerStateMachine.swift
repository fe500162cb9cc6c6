import RTP
import SDP

/// One RTSP connection as a server sees it, sans I/O: requests in, answers and what to do with the media out.
/// The server side of ``RTSPClientStateMachine``.
///
/// ```swift
/// var machine = RTSPServerStateMachine(presentations: [.init(path: "/camera", formats: formats)])
/// for action in machine.receive(request, now: .now()) {
///     switch action {
///     case .respond(let answer): write(answer.serialized())
///     case .play(let play): write(play.response(startingAt: positions).serialized()); startSending(play)
///     case .pause(let session): stopSending(session)
///     case .teardown(let session): stopSending(session)
///     }
/// }
/// ```
///
/// It serves OPTIONS, DESCRIBE (the presentation's SDP), SETUP (TCP interleaved, UDP unicast when the server has UDP
/// ports, and multicast to a presentation's group when it sends to groups), PLAY, PAUSE, TEARDOWN, and
/// GET_PARAMETER / SET_PARAMETER as keepalives; sessions that hear nothing for ``Configuration/sessionTimeout`` are
/// torn down by ``expire(now:)``, which the owner calls at ``nextWakeUp``. What is served, and to whom, is asked of
/// its ``RTSPServerPolicy`` for each request (a fixed list of presentations, played to all, is one). Every request but
/// OPTIONS is authenticated when ``Configuration/authentication`` is set, Digest with this connection's own
/// nonces; a wrong answer is ``Action/refuseAuthentication(_:)``, which the owner slows. A request it cannot serve
/// gets the status RFC 2326 gives it (400, 401, 403, 404, 453, 454, 455, 459, 461, 501, 551), never a crash; nothing
/// of a request is echoed that could break an answer's lines (a CSeq is digits, or the request is refused).
@_spi(SansIO) public struct RTSPServerStateMachine: Sendable {
    /// What a server serves and how.
    public struct Configuration: Sendable {
        /// How long a session lives without a request or RTCP from its client.
        public var sessionTimeout: Duration = .seconds(60)
        /// Users and schemes; nil serves everyone.
        public var authentication: ServerAuthentication?
        /// The server's RTP and RTCP ports for UDP: without them, UDP SETUPs get 461 (TCP interleaved only).
        public var udpPorts: (rtp: UInt16, rtcp: UInt16)?
        /// The TTL of what it sends to multicast groups, when it sends any: without it, multicast SETUPs get 461
        /// (and so do those of a presentation without a ``Presentation/multicast`` group).
        public var multicastTTL: UInt8?
        /// Sessions one connection may hold at once (one per presentation: each plays a full copy of its media).
        public var maxSessions = 4
        /// The `Require` options it supports (anything else gets 551).
        public var supportedOptions: Set<String> = []
        /// The `Server` header.
        public var serverName = "swift-rtp"

        public init() {}
    }

    /// A presentation the server offers: its path (`/camera`) and its tracks' formats.
    public struct Presentation: Sendable {
        public var path: String
        public var formats: [MediaFormat]
        /// The SRTP key's `a=crypto` value (RFC 4568) when the media is SRTP (`RTP/SAVP`), else nil.
        public var crypto: String?
        /// How long a recording is (`npt=0-DURATION`, the SDP's `a=range`); nil for live media. A PLAY whose range
        /// starts at or past its end is refused (457 Invalid Range).
        public var duration: Double?
        /// A recording's wall-clock time at its end, when it has a wall clock: a PLAY whose `clock=` range starts
        /// past it is refused (457), as is any `clock=` range of a recording without one.
        public var recordedUntil: WallClockTime?
        /// The group its viewers that ask for multicast join (live media only), nil when it is not sent to one.
        public var multicast: MulticastGroup?
        /// What its viewers may send back (the ONVIF audio backchannel, served to a request that requires
        /// ``RTSPServerStateMachine/backchannelRequirement``): a track of this format after ``formats``; nil when
        /// it takes nothing.
        public var backchannel: AudioFormat?

        public init(
            path: String, formats: [MediaFormat], crypto: String? = nil, duration: Double? = nil,
            recordedUntil: WallClockTime? = nil, multicast: MulticastGroup? = nil, backchannel: AudioFormat? = nil
        ) {
            self.path = Self.normalized(path)
            self.formats = formats
            self.crypto = crypto
            self.duration = duration
            self.recordedUntil = recordedUntil
            self.multicast = multicast
            self.backchannel = backchannel
        }

        /// A path without a trailing `/` (and `/` for the root).
        package static func normalized(_ path: String) -> String {
            var path = path.hasPrefix("/") ? path : "/" + path
            while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
            return path
        }
    }

    /// How one track of a session is sent.
    public enum Transport: Sendable, Hashable {
        /// In the RTSP connection, `$`-framed on these channels.
        case interleaved(rtp: UInt8, rtcp: UInt8)
        /// Over UDP to these ports of the client's address (the connection's peer).
        case udp(rtp: UInt16, rtcp: UInt16)
        /// To the presentation's multicast group, on these ports: one stream for every viewer that joined it.
        case multicast(MulticastGroup, rtp: UInt16, rtcp: UInt16)

        /// Whether it goes to a multicast group.
        public var isMulticast: Bool { if case .multicast = self { true } else { false } }
    }

    /// A track set up in a session.
    public struct Track: Sendable, Hashable {
        /// Its index in the presentation.
        public var index: Int
        public var transport: Transport
        /// Whether it is the presentation's backchannel: the client sends on it, the server receives.
        public var isBackchannel = false
    }

    /// A PLAY the server accepted: what to send, and the answer to write before the first packet.
    public struct Play: Sendable {
        public let session: String
        public let path: String
        public let tracks: [Track]
        /// Where the client asked to start (PLAY's `Range`), nil when it did not say (from where it is).
        public let range: PlaybackRequest.Range?
        /// How fast (PLAY's `Scale`: 2 twice as fast, -1 backwards), nil when it did not say.
        public let scale: Double?
        /// Whether it asked for ONVIF's replay (`Require: onvif-replay`): each unit's first packet carries the
        /// recording time (``RTP/ONVIFReplayExtension``).
        public let onvifReplay: Bool
        /// False for `Rate-Control: no`: as fast as the client reads, not at the recording's pace.
        public let rateControl: Bool
        /// How much faster than the media's time to deliver it (PLAY's `Speed`, RFC 2326 section 12.35: the RTP
        /// time is not changed, only the pace), nil when it did not say.
        public let speed: Double?
        let cseq: String
        /// The low byte of the PLAY's CSeq, which ONVIF's replay extension carries.
        public var cseqByte: UInt8 { UInt8(truncatingIfNeeded: Int(cseq) ?? 0) }
        let base: String
        let serverName: String
        let sessionHeader: String

        /// The PLAY answer, with RTP-Info naming where each track starts (`positions`: per track index, its
        /// next sequence number and the RTP time of `range`'s start), and the range played (`npt=0-` for live
        /// media), with the scale when it was asked.
        public func response(
            startingAt positions: [Int: (sequenceNumber: UInt16, rtpTime: UInt32)],
            range: PlaybackRequest.Range = .npt(start: 0, end: nil)
        ) -> RTSPMessage {
            let info = RTPInfo(
                entries: tracks.compactMap { track in
                    positions[track.index].map {
                        RTPInfo.Entry(
                            url: "\(base)trackID=\(track.index)", sequenceNumber: $0.sequenceNumber, rtpTime: $0.rtpTime
                        )
                    }
                })
            var headers = [
                ("CSeq", cseq), ("Server", serverName), ("Session", sessionHeader), ("Range", range.description),
            ]
            if let scale { headers.append(("Scale", PlaybackRequest.Range.seconds(scale))) }
            if let speed { headers.append(("Speed", PlaybackRequest.Range.seconds(speed))) }
            if !info.entries.isEmpty { headers.append(("RTP-Info", info.serialized())) }
            return RTSPMessage(kind: .response(statusCode: 200, reason: "OK"), headers: headers, body: [])
        }

        /// The answer when the server cannot play it after all (its source went away or ended).
        public func refusal(statusCode: Int, reason: String) -> RTSPMessage {
            RTSPMessage(
                kind: .response(statusCode: statusCode, reason: reason),
                headers: [("CSeq", cseq), ("Server", serverName)], body: [])
        }
    }

    /// What the connection's owner does.
    public enum Action: Sendable {
        /// Write this answer.
        case respond(RTSPMessage)
        /// Start (or resume) sending a session's tracks, after writing `Play.response(startingAt:)`.
        case play(Play)
        /// Stop sending a session's tracks for now.
        case pause(session: String)
        /// Stop sending a session's tracks and forget it (asked, or timed out).
        case teardown(session: String)
        /// A wrong answer to the authentication challenge (a guess): write this 401, after the delay the
        /// server's policy gives repeated guesses.
        case refuseAuthentication(RTSPMessage)
    }

    /// Where a session is, with what it carries.
    public enum SessionState: Sendable, Hashable {
        /// Tracks set up, not playing yet (SETUP may add more).
        case ready
        /// Sending since this time.
        case playing(since: ArrivalTime)
        /// Paused at this time, after playing (PLAY resumes; SETUP may change tracks).
        case paused(since: ArrivalTime)
    }

    struct Session: Sendable {
        var path: String
        var tracks: [Track] = []
        var lastHeard: ArrivalTime
        var state = SessionState.ready

        var isPlaying: Bool { if case .playing = state { true } else { false } }
    }

    public let configuration: Configuration
    /// What it serves and to whom, asked for each request.
    public private(set) var policy: any RTSPServerPolicy
    private var sessions: [String: Session] = [:]
    /// The Digest nonces this connection was given.
    private var nonces = DigestNonces()
    /// Wrong answers to the challenge on this connection so far.
    public private(set) var authenticationFailures = 0

    /// A machine serving what `policy` offers at each request (a server's mounted sources), to whom it allows.
    public init(policy: any RTSPServerPolicy, configuration: Configuration = Configuration()) {
        self.policy = policy
        self.configuration = configuration
    }

    /// A machine serving exactly `presentations`.
    public init(presentations: [Presentation], configuration: Configuration = Configuration()) {
        self.init(policy: presentations, configuration: configuration)
    }

    /// The ids of the sessions it holds.
    public var sessionIDs: [String] { sessions.keys.sorted() }

    /// How many sessions it holds.
    public var sessionCount: Int { sessions.count }

    /// Where session `id` is; nil for a session it does not hold.
    public func state(ofSession id: String) -> SessionState? { sessions[id]?.state }

    /// When ``expire(now:)`` next has something to do (the first session's timeout); nil without sessions.
    public var nextWakeUp: ArrivalTime? {
        sessions.values.map { $0.lastHeard + configuration.sessionTimeout }.min()
    }

    /// Offers exactly `presentations` from now on.
    public mutating func replacePresentations(_ presentations: [Presentation]) {
        policy = presentations
    }

    /// Something was heard from the client (RTCP, a keepalive): its sessions live on.
    public mutating func noteActivity(now: ArrivalTime) {
        for id in sessions.keys { sessions[id]?.lastHeard = now }
    }

    /// Tears down the sessions that heard nothing for the session timeout.
    public mutating func expire(now: ArrivalTime) -> [Action] {
        let idle = sessions.filter { now - $0.value.lastHeard >= configuration.sessionTimeout }.keys.sorted()
        for id in idle { sessions[id] = nil }
        return idle.map { .teardown(session: $0) }
    }

    /// Every session torn down: the connection closed.
    public mutating func close() -> [Action] {
        let all = sessions.keys.sorted()
        sessions = [:]
        return all.map { .teardown(session: $0) }
    }

    /// The answer to `request`, and what to do.
    public mutating func receive(_ request: RTSPMessage, now: ArrivalTime) -> [Action] {
        guard case .request(let name, let uri) = request.kind else { return [] }
        // RFC 2326: CSeq is 1*DIGIT. It is echoed, so nothing else is (a bare CR would split the answer's lines).
        guard let cseq = request.header("CSeq")?.trimmingCharacters(), (1...9).contains(cseq.utf8.count),
            cseq.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else {
            return [
                .respond(
                    answer(400, "Bad Request", cseq: "0", ["Reason: a request needs a CSeq header of 1 to 9 digits"]))
            ]
        }
        let method = RTSPMethod(name)
        let required = Self.list(request.header("Require")).filter { !supports($0, uri: uri) }
        if !required.isEmpty {
            return [
                .respond(
                    answer(
                        551, "Option not supported", cseq: cseq, ["Unsupported: \(required.joined(separator: ", "))"]))
            ]
        }
        var user: String?
        if method != .options, let authentication = configuration.authentication {
            switch authentication.verify(request, method: method.name, uri: uri, nonces: &nonces, now: now) {
            case .authenticated(let name): user = name
            case .missing:
                return [.respond(challenge(authentication, cseq: cseq, stale: false, now: now))]
            case .stale(let user):
                // Its own nonce expired under a right answer: the client is who it says, and its session lives on
                // while it answers the new nonce.
                if user != nil { refresh(request, now: now) }
                return [.respond(challenge(authentication, cseq: cseq, stale: true, now: now))]
            case .wrong:
                authenticationFailures += 1
                return [.refuseAuthentication(challenge(authentication, cseq: cseq, stale: false, now: now))]
            }
        }
        if let id = request.header("Session").flatMap(SessionHeader.init)?.id {
            guard sessions[id] != nil else { return [.respond(answer(454, "Session Not Found", cseq: cseq))] }
            sessions[id]?.lastHeard = now
        }
        switch method {
        case .options: return [.respond(answer(200, "OK", cseq: cseq, ["Public: \(Self.publicMethods)"]))]
        case .describe:
            let backchannel = Self.list(request.header("Require")).contains(Self.backchannelRequirement)
            return [describe(uri: uri, cseq: cseq, user: user, backchannel: backchannel)]
        case .setup: return [setup(request, uri: uri, cseq: cseq, user: user, now: now)]
        case .play, .pause, .teardown: return control(method, request, uri: uri, cseq: cseq, user: user, now: now)
        case .getParameter, .setParameter: return [.respond(answer(200, "OK", cseq: cseq, sessionLine(request)))]
        default: return [.respond(answer(501, "Not Implemented", cseq: cseq, ["Public: \(Self.publicMethods)"]))]
        }
    }

    /// The `Require` option ONVIF's replay asks for (ONVIF Streaming Specification section 6.2): served for a
    /// recording (a presentation with a ``Presentation/duration``), whose packets then carry the recording time.
    public static let onvifReplay = "onvif-replay"

    /// The `Require` option of ONVIF's audio backchannel (ONVIF Streaming Specification section 5.3): served for a
    /// presentation with a ``Presentation/backchannel``, whose description then has its track.
    public static let backchannelRequirement = RTSPClientStateMachine.backchannelRequirement

    /// Whether `option` of a `Require` header is served for the presentation `uri` names.
    private func supports(_ option: String, uri: String) -> Bool {
        if configuration.supportedOptions.contains(option) { return true }
        guard option == Self.onvifReplay || option == Self.backchannelRequirement, let url = try? RTSPURL(uri) else {
            return false
        }
        let presentation = policy.presentation(at: Self.presentationPath(Self.pathWithoutQuery(url.path)))
        return option == Self.onvifReplay ? presentation?.duration != nil : presentation?.backchannel != nil
    }

    /// The methods it serves, as the `Public` header lists them.
    public static let methods: [RTSPMethod] = [
        .options, .describe, .setup, .play, .pause, .teardown, .getParameter, .setParameter,
    ]
    static let publicMethods = methods.map(\.name).joined(separator: ", ")

    /// A 401 with the challenges of this connection's current nonce.
    private mutating func challenge(_ authentication: ServerAuthentication, cseq: String, stale: Bool, now: ArrivalTime)
        -> RTSPMessage
    {
        let nonce = nonces.current(now: now, lifetime: authentication.nonceLifetime)
        return answer(
            401, "Unauthorized", cseq: cseq,
            authentication.challenges(nonce: nonce, stale: stale).map { "WWW-Authenticate: \($0)" })
    }

    /// The session `request` names hears from its client.
    private mutating func refresh(_ request: RTSPMessage, now: ArrivalTime) {
        guard let id = request.header("Session").flatMap(SessionHeader.init)?.id, sessions[id] != nil else { return }
        sessions[id]?.lastHeard = now
    }

    /// The presentation's description; with `backchannel` (the request requires it), its backchannel's track too.
    private func describe(uri: String, cseq: String, user: String?, backchannel: Bool) -> Action {
        guard let url = try? RTSPURL(uri) else { return .respond(answer(400, "Bad Request", cseq: cseq)) }
        let path = Presentation.normalized(Self.pathWithoutQuery(url.path))
        // Asked before the path is looked up: one who may not play it does not learn whether it exists.
        if let forbidden = forbidden(path, user: user, cseq: cseq) { return forbidden }
        guard let presentation = policy.presentation(at: path) else {
            return .respond(answer(404, "Not Found", cseq: cseq))
        }
        let sdp = SessionDescription.text(
            describing: presentation.formats, sessionName: configuration.serverName, crypto: presentation.crypto,
            range: presentation.duration.map { PlaybackRequest.Range.npt(start: 0, end: $0).description },
            backchannel: backchannel ? presentation.backchannel : nil)
        var base = url
        base.path = path == "/" ? "/" : path + "/"
        var message = answer(200, "OK", cseq: cseq, ["Content-Base: \(base)", "Content-Type: application/sdp"])
        message.body = Array(sdp.utf8)
        return .respond(message)
    }

    private mutating func setup(_ request: RTSPMessage, uri: String, cseq: String, user: String?, now: ArrivalTime)
        -> Action
    {
        guard let url = try? RTSPURL(uri) else { return .respond(answer(404, "Not Found", cseq: cseq)) }
        let requested = Self.pathWithoutQuery(url.path)
        if let forbidden = forbidden(Self.presentationPath(requested), user: user, cseq: cseq) { return forbidden }
        guard let (path, index) = track(at: requested) else { return .respond(answer(404, "Not Found", cseq: cseq)) }
        var id = request.header("Session").flatMap(SessionHeader.init)?.id
        if let id, let session = sessions[id] {
            guard session.path == path else {
                return .respond(answer(459, "Aggregate Operation Not Allowed", cseq: cseq))
            }
            guard !session.isPlaying else { return .respond(answer(455, "Method Not Valid in This State", cseq: cseq)) }
        }
        if id == nil, let existing = sessions.first(where: { $0.value.path == path })?.key {
            return .respond(
                answer(
                    453, "Not Enough Bandwidth", cseq: cseq,
                    [
                        "Reason: this connection already has session \(existing) of \(path): name it in the Session header"
                    ]))
        }
        let presentation = policy.presentation(at: path)
        let secure = presentation?.crypto != nil
        let offers = Self.transportOffers(request.header("Transport"))
        if !offers.isEmpty, offers.allSatisfy({ $0.mode == "record" }) {
            return .respond(
                answer(
                    461, "Unsupported Transport", cseq: cseq,
                    ["Reason: this server plays; it does not record (mode=record)"]))
        }
        // The backchannel comes from the client: never from a group.
        let isBackchannel = index == presentation?.formats.count
        let group = configuration.multicastTTL == nil || isBackchannel ? nil : presentation?.multicast
        guard let (transport, echoed) = chooseTransport(offers, index: index, secure: secure, group: group) else {
            let profile = secure ? "RTP/SAVP" : "RTP/AVP"
            var offered = ["\(profile)/TCP;interleaved"]
            if configuration.udpPorts != nil { offered.append("\(profile);unicast") }
            if group != nil { offered.append("\(profile);multicast") }
            return .respond(
                answer(
                    461, "Unsupported Transport", cseq: cseq,
                    ["Reason: this server sends \(path) as \(offered.joined(separator: " or "))"]))
        }
        // A session's tracks join the group together or not at all: its viewer is one member, or one client. (Its
        // backchannel, which it sends, is its own.)
        if !isBackchannel, let id,
            let other = sessions[id]?.tracks.first(where: { $0.index != index && !$0.isBackchannel }),
            other.transport.isMulticast != transport.isMulticast
        {
            return .respond(
                answer(
                    461, "Unsupported Transport", cseq: cseq,
                    ["Reason: a session's tracks are all multicast or none; set this track up as the others"]))
        }
        if id == nil {
            guard sessions.count < configuration.maxSessions else {
                return .respond(
                    answer(453, "Not Enough Bandwidth", cseq: cseq, ["Reason: too many sessions on one connection"]))
            }
            let new = Self.newSessionID()
            sessions[new] = Session(path: path, lastHeard: now)
            id = new
        }
        guard let id else { return .respond(answer(500, "Internal Server Error", cseq: cseq)) }
        sessions[id]?.tracks.removeAll { $0.index == index }
        sessions[id]?.tracks.append(Track(index: index, transport: transport, isBackchannel: isBackchannel))
        sessions[id]?.tracks.sort { $0.index < $1.index }
        return .respond(
            answer(200, "OK", cseq: cseq, ["Transport: \(echoed.serialized())", "Session: \(sessionValue(id))"]))
    }

    private mutating func control(
        _ method: RTSPMethod, _ request: RTSPMessage, uri: String, cseq: String, user: String?, now: ArrivalTime
    )
        -> [Action]
    {
        guard let id = request.header("Session").flatMap(SessionHeader.init)?.id, let session = sessions[id] else {
            return [.respond(answer(454, "Session Not Found", cseq: cseq))]
        }
        switch method {
        case .play:
            guard !session.tracks.isEmpty else {
                return [.respond(answer(455, "Method Not Valid in This State", cseq: cseq))]
            }
            // Asked again at each PLAY: a policy that stops allowing a user stops its next PLAY.
            if let forbidden = forbidden(session.path, user: user, cseq: cseq) { return [forbidden] }
            // Looked up once: a directory's recording lists and checks its files at each lookup.
            let presentation = policy.presentation(at: session.path)
            let isRecording = presentation?.duration != nil
            var range: PlaybackRequest.Range?
            if let text = request.header("Range") {
                guard let asked = try? PlaybackRequest.Range(parsing: text) else {
                    return [.respond(answer(457, "Invalid Range", cseq: cseq))]
                }
                switch asked {
                case .npt(let start, _):
                    if let duration = presentation?.duration, start >= duration {
                        return [.respond(answer(457, "Invalid Range", cseq: cseq, ["Reason: it starts past the end"]))]
                    }
                case .clock(let start, _):
                    guard presentation?.duration != nil else { break }
                    guard let end = presentation?.recordedUntil else {
                        return [
                            .respond(
                                answer(457, "Invalid Range", cseq: cseq, ["Reason: this recording has no wall clock"]))
                        ]
                    }
                    if start >= end {
                        return [.respond(answer(457, "Invalid Range", cseq: cseq, ["Reason: it starts past the end"]))]
                    }
                }
                range = asked
            }
            var scale: Double?
            if let text = request.header("Scale") {
                // Up to 64 times as fast, forward; backwards (negative) for a recording alone.
                guard let value = Double(text), value != 0, value.magnitude <= 64, value > 0 || isRecording else {
                    return [
                        .respond(
                            answer(
                                400, "Bad Request", cseq: cseq,
                                ["Reason: Scale must be between -64 and 64 and not 0 (negative for a recording)"]))
                    ]
                }
                scale = value
            }
            var speed: Double?
            if let text = request.header("Speed"), isRecording {
                guard let value = Double(text.trimmingCharacters()), value > 0, value <= 64 else {
                    return [
                        .respond(
                            answer(400, "Bad Request", cseq: cseq, ["Reason: Speed must be above 0 and at most 64"]))
                    ]
                }
                speed = value
            }
            let onvifReplay = isRecording && Self.list(request.header("Require")).contains(Self.onvifReplay)
            let rateControl = request.header("Rate-Control")?.trimmingCharacters().lowercased() != "no"
            if !session.isPlaying { sessions[id]?.state = .playing(since: now) }
            let base =
                (try? RTSPURL(uri)).map { url in
                    var base = url
                    base.path = session.path == "/" ? "/" : session.path + "/"
                    return base.description
                } ?? ""
            return [
                .play(
                    Play(
                        session: id, path: session.path, tracks: session.tracks, range: range, scale: scale,
                        onvifReplay: onvifReplay, rateControl: rateControl, speed: speed, cseq: cseq, base: base,
                        serverName: configuration.serverName, sessionHeader: sessionValue(id)))
            ]
        case .pause:
            if session.isPlaying { sessions[id]?.state = .paused(since: now) }
            return [.respond(answer(200, "OK", cseq: cseq, ["Session: \(sessionValue(id))"])), .pause(session: id)]
        default:
            sessions[id] = nil
            return [.respond(answer(200, "OK", cseq: cseq, ["Session: \(id)"])), .teardown(session: id)]
        }
    }

    /// The presentation a SETUP URL's path names, whether or not it is served: `<path>` of `<path>/trackID=<n>`, or
    /// the path itself.
    private static func presentationPath(_ path: String) -> String {
        let normalized = Presentation.normalized(path)
        guard let slash = normalized.lastIndex(of: "/"),
            normalized[normalized.index(after: slash)...].hasPrefix("trackID=")
        else { return normalized }
        return Presentation.normalized(String(normalized[..<slash]))
    }

    /// The presentation and track a SETUP URL names: `<path>/trackID=<n>`, or the path of a presentation of one
    /// track.
    private func track(at path: String) -> (path: String, index: Int)? {
        let normalized = Presentation.normalized(path)
        if let slash = normalized.lastIndex(of: "/"),
            normalized[normalized.index(after: slash)...].hasPrefix("trackID=")
        {
            let parent = Presentation.normalized(String(normalized[..<slash]))
            let number = normalized[normalized.index(after: slash)...].dropFirst("trackID=".count)
            if let index = Int(number), let presentation = policy.presentation(at: parent),
                presentation.formats.indices.contains(index)
                    || (index == presentation.formats.count && presentation.backchannel != nil)
            {
                return (parent, index)
            }
            return nil
        }
        if let presentation = policy.presentation(at: normalized), presentation.formats.count == 1 {
            return (normalized, 0)
        }
        return nil
    }

    /// The first transport the client offers that the server sends, and the Transport header to answer with.
    /// A multicast offer is answered with the presentation's `group` (nil: not served), whatever group or ports it
    /// asked for: its other viewers are there.
    private func chooseTransport(_ offers: [TransportHeader], index: Int, secure: Bool, group: MulticastGroup?)
        -> (Transport, TransportHeader)?
    {
        for spec in offers where spec.mode == nil || spec.mode == "play" {
            let profile = spec.profile.uppercased()
            // SRTP media goes to a client that asks for RTP/SAVP, and to one that asks for RTP/AVP having read the
            // key from the SDP's a=crypto (FFmpeg does); plain media never to one that asks for SRTP.
            let base = profile.hasSuffix("/TCP") || profile.hasSuffix("/UDP") ? String(profile.dropLast(4)) : profile
            guard base == "RTP/AVP" || (secure && base == "RTP/SAVP") else { continue }
            if spec.isMulticast {
                guard !profile.hasSuffix("/TCP"), let group, let ttl = configuration.multicastTTL,
                    let ports = group.ports(track: index)
                else { continue }
                return (
                    .multicast(group, rtp: ports.rtp, rtcp: ports.rtcp),
                    TransportHeader(
                        profile: base, isMulticast: true, destination: group.address, multicastPorts: ports, ttl: ttl)
                )
            }
            if profile.hasSuffix("/TCP") {
                let channels =
                    spec.interleavedChannels ?? (
                        UInt8(truncatingIfNeeded: 2 * index), UInt8(truncatingIfNeeded: 2 * index + 1)
                    )
                return (
                    .interleaved(rtp: channels.rtp, rtcp: channels.rtcp),
                    TransportHeader(profile: base + "/TCP", interleavedChannels: channels)
                )
            }
            if let ports = configuration.udpPorts, let client = spec.clientPorts, client.rtp > 0 {
                return (
                    .udp(rtp: client.rtp, rtcp: client.rtcp),
                    TransportHeader(profile: base, clientPorts: client, serverPorts: ports)
                )
            }
        }
        return nil
    }

    /// A 403 when the policy does not let `user` play `path`; nil when it does. The answer names neither the user
    /// nor the accounts that may play it.
    private func forbidden(_ path: String, user: String?, cseq: String) -> Action? {
        guard !policy.allows(user: user, toPlay: path) else { return nil }
        let who = user == nil ? "this client" : "this account"
        return .respond(answer(403, "Forbidden", cseq: cseq, ["Reason: \(who) may not play \(path)"]))
    }

    private func answer(_ status: Int, _ reason: String, cseq: String, _ headers: [String] = []) -> RTSPMessage {
        var fields = [("CSeq", cseq), ("Server", configuration.serverName)]
        for header in headers {
            guard let colon = header.firstIndex(of: ":") else { continue }
            fields.append(
                (String(header[..<colon]), String(header[header.index(after: colon)...]).trimmingCharacters()))
        }
        return RTSPMessage(kind: .response(statusCode: status, reason: reason), headers: fields, body: [])
    }

    private func sessionLine(_ request: RTSPMessage) -> [String] {
        request.header("Session").flatMap(SessionHeader.init).map { ["Session: \(sessionValue($0.id))"] } ?? []
    }

    private func sessionValue(_ id: String) -> String {
        SessionHeader(id: id, timeout: configuration.sessionTimeout).serialized()
    }

    /// The transports a SETUP offers, in its order (the first eight).
    private static func transportOffers(_ header: String?) -> [TransportHeader] {
        (header ?? "").split(separator: ",").prefix(8).map { TransportHeader(String($0)) }
    }

    private static func list(_ value: String?) -> [String] {
        (value ?? "").split(separator: ",").map { $0.trimmingCharacters() }.filter { !$0.isEmpty }
    }

    private static func pathWithoutQuery(_ path: String) -> String {
        path.firstIndex(of: "?").map { String(path[..<$0]) } ?? path
    }

    private static func newSessionID() -> String {
        String(UInt64.random(in: 1 << 60...UInt64.max), radix: 16, uppercase: true)
    }
}

/// What a server serves and to whom, asked by its ``RTSPServerStateMachine`` at each request that names a path, as
/// gortsplib's server asks its handler: the machine holds no rule of its own about who may watch what. A server's
/// mounted sources and its application's access rule are one; a fixed list, played to everyone, is another.
@_spi(SansIO) public protocol RTSPServerPolicy: Sendable {
    /// The presentation at `path` (normalized: a leading `/`, no trailing one), or nil (404).
    func presentation(at path: String) -> RTSPServerStateMachine.Presentation?
    /// Whether `user` may play `path` (asked at DESCRIBE, SETUP and each PLAY, after authentication): its name when
    /// the server authenticates, nil when it does not. False answers 403. By default everyone may.
    func allows(user: String?, toPlay path: String) -> Bool
}

@_spi(SansIO) extension RTSPServerPolicy {
    public func allows(user: String?, toPlay path: String) -> Bool { true }
}

@_spi(SansIO) extension Array: RTSPServerPolicy where Element == RTSPServerStateMachine.Presentation {
    public func presentation(at path: String) -> RTSPServerStateMachine.Presentation? { first { $0.path == path } }
}
