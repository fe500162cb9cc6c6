import RTP
import SDP

// The server's answers, one handler per state.
extension RTSPClientStateMachine {
    /// An answer to `request`: what any state does with a 401, a refused keepalive, a redirect or a refusal,
    /// then what the state the session is in does with a success (one handler per state below).
    mutating func response(
        status: Int, reason: String, message: RTSPMessage, to request: RTSPRequest, now: ArrivalTime
    )
        -> [Action]
    {
        if status == 401 { return unauthorized(message, request: request, now: now) }
        // 200, or 454 from a server that restarted.
        if state.isClearingStale { return afterStaleTeardown(now: now) }
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
        case .describing: return describeAnswered(message, now: now)
        case .settingUp(let setUp, let index): return setupAnswered(setUp, index, message, now: now)
        case .established(let established): return playAnswered(established, message, now: now)
        case .tearingDown(let reached):
            state = .done(reached)
            return [.closed]
        case .idle, .clearingStale, .described, .done: return []
        }
    }

    /// An established session's request answered: PLAY (the first, a seek or a resume) or PAUSE; a keepalive's
    /// answer changes nothing.
    mutating func playAnswered(_ established: Established, _ message: RTSPMessage, now: ArrivalTime)
        -> [Action]
    {
        var established = established
        let actions: [Action]
        switch established.step {
        case .starting:
            noteRTPInfo(message, in: &established)
            established.keepalive = now + established.session.keepaliveInterval
            established.step = .playing
            actions = [.playing(established.tracks), .wakeUp(at: established.keepalive)]
        case .seeking:
            for index in established.tracks.indices { established.tracks[index].rtpInfo = nil }
            noteRTPInfo(message, in: &established)
            established.step = .playing
            actions = [.seeked(established.tracks)]
        case .pausing:
            established.step = .paused
            actions = [.paused]
        case .resuming:
            established.step = .playing
            actions = [.resumed]
        case .ready, .joiningMulticast, .playing, .paused:
            return []
        }
        state = .established(established)
        return actions
    }

    /// A 3xx: the session starts again at its Location, never from rtsps down to rtsp.
    mutating func redirected(status: Int, message: RTSPMessage) -> [Action] {
        guard let location = message.header("Location"), let target = try? RTSPURL(location) else {
            return fail(
                RTSPClientError(.protocolViolation, "redirect \(status) without a usable Location", status: status))
        }
        if configuration.url.isSecure && !target.isSecure {
            return fail(
                RTSPClientError(.refusedRedirect, "refused a redirect from rtsps to rtsp (\(target))", status: status))
        }
        state = .done(state.reached)
        return [.redirect(target)]
    }

    /// A 4xx or 5xx: SETUP asks for TCP after a 461, a refused audio track is left out, TEARDOWN ends anyway;
    /// anything else ends the session, saying what the status means where a user can act on it.
    mutating func refused(status: Int, reason: String, request: RTSPRequest, now: ArrivalTime) -> [Action] {
        if status == 461, request.method == .setup, transport != .tcpInterleaved {
            transport = .tcpInterleaved  // the server does not do UDP (or multicast): ask for TCP instead
            return setupNext(now: now)
        }
        if case .settingUp(var setUp, let index) = state, setUp.tracks[index].format.kind == .audio,
            !setUp.tracks[index].isBackchannel, setUp.tracks.count > 1
        {
            // A camera with its audio switched off refuses the audio track: play the others.
            setUp.refused.append((setUp.tracks.remove(at: index), status))
            state = .settingUp(setUp, index: index)
            if index < setUp.tracks.count { return setupNext(now: now) }  // the next track is at the same index now
            return setupDone(setUp, now: now)
        }
        if case .tearingDown(let reached) = state {
            state = .done(reached)
            return [.closed]
        }
        if status == 403 {
            let who = configuration.credentials == nil ? "a client without credentials" : "this account"
            return fail(
                RTSPClientError(
                    .unauthorized,
                    "the RTSP server answered \(request.method) with 403 \(reason): it does not let \(who) play "
                        + "\(configuration.url.path); use an account that may, or ask the server's owner for access",
                    status: status))
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
    mutating func optionsAnswered(_ message: RTSPMessage, now: ArrivalTime) -> [Action] {
        keepalive.serverSupports(
            Set((message.header("Public") ?? "").split(separator: ",").map { RTSPMethod($0.trimmingCharacters()) }))
        state = .describing
        return send(
            RTSPRequest(method: .describe, url: configuration.url, headers: ["Accept": "application/sdp"]), now: now)
    }

    /// DESCRIBE answered: the tracks offered (of the kinds asked for, in a codec this library takes), then
    /// SETUP (or, stepwise, the caller's choice).
    mutating func describeAnswered(_ message: RTSPMessage, now: ArrivalTime) -> [Action] {
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
        let tracks = description.media.compactMap { media -> Track? in
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
        let offer = Offer(
            description: description, tracks: tracks.filter { !$0.isBackchannel } + tracks.filter(\.isBackchannel))
        guard !offer.tracks.isEmpty else {
            state = .done(.offered(offer))  // its description stays readable: what it offered instead
            let kinds = MediaKind.allCases.filter(configuration.mediaKinds.contains)
            let codecs = kinds.map { $0 == .video ? "H.264 or H.265" : "AAC, G.711, L16 or Opus" }
            return [
                .failed(
                    RTSPClientError(
                        .noPlayableTrack,
                        "the session description offers no \(kinds.map(\.rawValue).joined(separator: " or ")) "
                            + "track this library plays (\(codecs.joined(separator: "; ")))"))
            ]
        }
        if configuration.stepwise {
            state = .described(offer)
            return [.described(offer.tracks)]
        }
        return startSetup(offer, selection: configuration.trackSelection, now: now)
    }

    /// SETUP of `setUp.tracks[index]` answered: its transport, and the session's, then the next track or PLAY.
    mutating func setupAnswered(_ setUp: SetUp, _ index: Int, _ message: RTSPMessage, now: ArrivalTime)
        -> [Action]
    {
        guard let value = message.header("Session"), let header = SessionHeader(value) else {
            return fail(RTSPClientError(.protocolViolation, "the SETUP answer has no Session header"))
        }
        var setUp = setUp
        setUp.session = setUp.session ?? header
        let transport = message.header("Transport").map(TransportHeader.init)
        setUp.tracks[index].transport = transport
        setUp.tracks[index].announcedSSRCs = (transport?.ssrcReadings ?? []).subtracting([0])
        guard index + 1 < setUp.tracks.count else {
            state = .settingUp(setUp, index: index)
            return setupDone(setUp, now: now)
        }
        state = .settingUp(setUp, index: index + 1)
        return setupNext(now: now)
    }

    /// A PLAY answer's RTP-Info (each track's first sequence number and RTP time) and Range.
    func noteRTPInfo(_ message: RTSPMessage, in established: inout Established) {
        established.playedRange = message.header("Range")
        established.playedScale = message.header("Scale").flatMap { Double($0.trimmingCharacters()) }.flatMap {
            $0.isFinite ? $0 : nil
        }
        guard let value = message.header("RTP-Info") else { return }
        let entries = RTPInfo(value).entries(for: established.tracks.map(\.control), base: configuration.url)
        for (index, entry) in entries.enumerated() {
            guard let entry else { continue }
            established.tracks[index].rtpInfo = entry
            established.tracks[index].announcedSSRCs.formUnion(entry.ssrcs.subtracting([0]))
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
    mutating func setupDone(_ setUp: SetUp, now: ArrivalTime) -> [Action] {
        guard let session = setUp.session else {
            return fail(RTSPClientError(.protocolViolation, "no Session to play: SETUP gave none"))
        }
        let established = Established(setUp, session: session, keepalive: now + session.keepaliveInterval)
        guard configuration.stepwise else { return sendPlay(established, now: now) }
        state = .established(established)
        return [.setUp(established.tracks), .wakeUp(at: established.keepalive)]
    }

    /// SETUP of the track the state names.
    mutating func setupNext(now: ArrivalTime) -> [Action] {
        guard case .settingUp(let setUp, let index) = state, setUp.tracks.indices.contains(index) else { return [] }
        let offer: TransportHeader
        let profile = setUp.tracks[index].isSecure ? "RTP/SAVP" : "RTP/AVP"
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
        if let session = setUp.session { headers["Session"] = session.id }
        return send(RTSPRequest(method: .setup, url: setUp.tracks[index].control, headers: headers), now: now)
    }

    mutating func unauthorized(_ message: RTSPMessage, request: RTSPRequest, now: ArrivalTime) -> [Action] {
        let denied = RTSPClientError(
            .unauthorized,
            configuration.credentials == nil
                ? "401 Unauthorized from \(configuration.url.origin): it wants a user name and password"
                : "401 Unauthorized from \(configuration.url.origin): it refused the user name and password; "
                    + "check them",
            status: 401)
        // A stale session the server will not let go of without credentials it does not take: left to its timeout.
        guard let credentials = configuration.credentials else {
            return state.isClearingStale ? afterStaleTeardown(now: now) : fail(denied)
        }
        let values = message.headers.filter { $0.name.lowercased() == "www-authenticate" }.map(\.value)
        guard let challenges = try? AuthenticationChallenge.parse(values),
            let challenge = AuthenticationChallenge.strongest(challenges)
        else {
            if state.isClearingStale { return afterStaleTeardown(now: now) }
            return fail(
                RTSPClientError(.protocolViolation, "401 without a challenge this client can answer", status: 401))
        }
        guard authentication.challenged(challenge, credentials: credentials) else {
            return state.isClearingStale ? afterStaleTeardown(now: now) : fail(denied)
        }
        var retry = request
        retry.headers["Authorization"] = nil
        return send(retry, now: now)
    }
}
