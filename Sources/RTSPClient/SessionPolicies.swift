import RTP
@_spi(SansIO) import RTSP

/// Which transport a session plays, and when it gives up UDP for TCP: a small value the driver asks and tells
/// (as swift-nio-http2's `DOSHeuristics` is), so that the rule lives in one place and is tested without sockets.
struct TransportPolicy: Sendable {
    /// What the options asked for.
    let asked: RTSPSessionOptions.Transport
    /// What the session plays now: UDP for `.auto` until it falls back.
    private(set) var current: RTSPSessionOptions.Transport
    /// Whether the session went to TCP after asking for something else.
    var fellBackToTCP: Bool { current == .tcp && asked != .tcp }

    init(asked: RTSPSessionOptions.Transport) {
        self.asked = asked
        current = asked == .auto ? .udp : asked
    }

    /// Whether silence is still answered by TCP rather than by an error: `.auto` on UDP, and multicast.
    var mayFallBack: Bool {
        (asked == .auto && current == .udp) || (asked == .multicast && current == .multicast)
    }

    /// The tracks PLAY started with: when the server gave interleaved channels to a UDP or multicast session
    /// (it answered 461, and the machine asked for TCP), or UDP had no ports, the session plays over TCP now.
    mutating func playing(interleaved: Bool, hasUDPPorts: Bool) {
        if (current == .udp && (interleaved || !hasUDPPorts)) || (current == .multicast && interleaved) { fallBack() }
    }

    /// Plays over TCP from now on.
    mutating func fallBack() { current = .tcp }
}

/// How many redirects a session follows: the cap of ``RTSPSessionOptions/maxRedirects``, counted from the
/// session's start or its latest reconnection.
struct RedirectPolicy: Sendable {
    let limit: Int
    private(set) var followed = 0

    init(limit: Int) { self.limit = limit }

    /// A redirect to `target`: nil to follow it, else the error that ends the session.
    mutating func redirect(to target: RTSPURL) -> RTSPClientError? {
        followed += 1
        guard followed > limit else { return nil }
        return RTSPClientError(.tooManyRedirects, "more than \(limit) redirects; the last went to \(target)")
    }

    /// A new attempt (a reconnection) starts counting again.
    mutating func reset() { followed = 0 }
}

/// How a session ends once every track's sender has said BYE: RTP and RTCP can travel separately (UDP, or
/// separate queues in the server), so the last packets may come after the BYE, and the session lingers until
/// its tracks have been quiet ``quiet``, or ``longest`` after the BYE at the latest.
struct ByeLinger: Sendable {
    /// How long the tracks must be quiet.
    static let quiet = Duration.milliseconds(300)
    /// The longest the session waits for that.
    static let longest = Duration.seconds(3)

    /// When the BYE came.
    let bye: ArrivalTime

    /// Whether the session ends at `now`, its last packet `silence` ago; if not, ask again ``quiet`` later.
    func ends(now: ArrivalTime, silence: Duration) -> Bool { silence >= Self.quiet || now - bye >= Self.longest }
}
