import RTP
import NIOCore
@_spi(SansIO) import RTSP

/// What a session that broke knows while it plays again (``RTSPSessionOptions/reconnection``).
struct Recovery {
    /// Attempts since the session last played (0: playing, or never broke).
    var attempts = 0
    /// Times the session played again after a break.
    private(set) var reconnects = 0
    /// Why the session last broke: the first failure of its latest break.
    private(set) var lastBreak: RTSPClientError?
    /// The last packet's arrival before the break not yet mended; nil while media flows.
    private var brokeAt: ArrivalTime?
    /// Time without media across the breaks that are mended.
    private var mended = Duration.zero
    /// A session a server may still hold (its connection broke before it saw a TEARDOWN), the URL it was
    /// played at, and how many fresh connections are left to tear it down.
    private var staleSession: (id: String, url: RTSPURL)?
    private var staleTries = 0
    /// The wait before the next attempt.
    private var wait: Scheduled<Void>?

    /// A fresh connection tries the TEARDOWN of a stale session at most this many times.
    static let maxStaleTries = 3

    /// An attempt failed; the first failure of a break is its cause (``lastBreak``), what later attempts
    /// meet is not.
    mutating func broke(_ error: RTSPClientError, lastMedia: ArrivalTime) {
        attempts += 1
        if attempts == 1 { lastBreak = error }
        if brokeAt == nil { brokeAt = lastMedia }
    }

    /// From the last packet before the break being mended to `now` (zero when none is).
    func currentGap(at now: ArrivalTime) -> Duration {
        guard let brokeAt else { return .zero }
        return now - brokeAt
    }

    /// The server at `url` may hold session `id` still: the next connections there tear it down first.
    mutating func leftOnServer(_ id: String, at url: RTSPURL) {
        staleSession = (id, url)
        staleTries = Self.maxStaleTries
    }

    /// The stale session for a new connection to `origin` to tear down, counting the try; nil when there is
    /// none, or when it lives on another server (a redirect led elsewhere): its id means nothing there.
    mutating func takeStaleSession(for origin: RTSPURL.Origin) -> String? {
        guard let stale = staleSession, stale.url.origin == origin, staleTries > 0 else { return nil }
        staleTries -= 1
        if staleTries == 0 { staleSession = nil }
        return stale.id
    }

    var hasStaleSession: Bool { staleSession != nil && staleTries > 0 }

    /// Where the stale session lives, while there is one.
    var staleSessionURL: RTSPURL? { hasStaleSession ? staleSession?.url : nil }

    /// PLAY was answered for the first time after failed first connects: the attempts start again.
    mutating func playedFirst() {
        attempts = 0
        staleSession = nil
    }

    /// PLAY was answered again: the stale session was seen to (answered, refused or given up on).
    mutating func played() {
        attempts = 0
        reconnects += 1
        staleSession = nil
    }

    /// The first packet after a break.
    mutating func mediaReturned(at time: ArrivalTime) {
        guard let brokeAt else { return }
        mended += time - brokeAt
        self.brokeAt = nil
    }

    func timeWithoutMedia(at now: ArrivalTime) -> Duration {
        guard let brokeAt else { return mended }
        return mended + (now - brokeAt)
    }

    mutating func waiting(_ task: Scheduled<Void>) { wait = task }

    /// Whether the session waits between attempts (no connection).
    var isWaiting: Bool { wait != nil }

    mutating func cancelWait() {
        wait?.cancel()
        wait = nil
    }

    mutating func waited() { wait = nil }
}

/// A session that breaks plays again when the options allow it; every failure goes through ``fail(_:)``.
extension SessionDriver {
    /// A failure of the session: a reconnecting session that has played plays again when waiting may mend
    /// it; otherwise the session ends with `error`. On the event loop.
    func fail(_ error: RTSPClientError) {
        guard willReconnect(after: error), let policy = options.reconnection else { return finish(error) }
        if let most = policy.maxAttempts, recovery.attempts >= most {
            return finish(
                RTSPClientError(
                    error.code, "\(error.reason) (gave up after \(most) attempt(s) to play again)", status: error.status
                ))
        }
        reconnect(after: error, policy: policy)
    }

    /// Whether `error` leads to a new attempt rather than the end.
    func willReconnect(after error: RTSPClientError) -> Bool {
        guard let policy = options.reconnection, hasPlayed || policy.includesFirstConnect else { return false }
        return (phase == .playing || phase == .starting) && Self.mayMend(error)
    }

    /// What waiting may mend: a server that went away, restarted, hung or stopped sending, or one that
    /// answers an error a restart brings (454 Session Not Found, 503). Not: credentials it refuses, a stream
    /// it does not have or will not give (403, 404, 410), a request it does not know, a certificate.
    static func mayMend(_ error: RTSPClientError) -> Bool {
        switch error.code {
        case .connectionFailed, .connectionClosed, .noMedia, .timeout, .protocolViolation: return true
        case .serverError: return ![400, 403, 404, 405, 410, 451, 501, 505, 551].contains(error.status ?? 0)
        default: return false
        }
    }

    /// Leaves the broken connection (TEARDOWN on it when it is still open, else the session is remembered
    /// for the next connection to tear down) and waits before the next attempt.
    private func reconnect(after error: RTSPClientError, policy: RTSPSessionOptions.Reconnection) {
        handOver()  // what the last read delivered goes on
        recovery.broke(error, lastMedia: media.lastArrival)
        if let session = machine.session?.id {
            if control?.isActive == true {
                for case .send(let request, let cseq) in machine.teardown(now: now) {
                    write(request.serialized(cseq: cseq))
                }
            } else {
                recovery.leftOnServer(session, at: url)
            }
        }
        if let old = leaveConnection() { Self.retire(old) }  // its generation ends: its events are ignored
        let delay = policy.delay(attempt: recovery.attempts, random: Double.random(in: 0...1))
        if recovery.attempts == 1 { tell(.broke(error)) }
        tell(.retrying(attempt: recovery.attempts, delay: delay))
        logger.notice(
            "the session broke (\(error)); playing again in \(delay) (attempt \(recovery.attempts))")
        recovery.waiting(
            eventLoop.scheduleTask(in: .init(delay)) { [self] in
                recovery.waited()
                guard phase == .starting else { return }
                attemptToPlayAgain()
            })
    }

    /// A new connection to the URL that played, bounded by ``RTSPSessionOptions/setupTimeout``.
    private func attemptToPlayAgain() {
        redirects.reset()
        start()
        let attempt = generation
        let timeout = options.setupTimeout
        schedule(at: now + timeout) { [self] in
            guard phase == .starting, generation == attempt else { return }
            fail(RTSPClientError(.timeout, "the server did not set the session up again within \(timeout)"))
        }
    }

    /// PLAY answered on a new connection after a break.
    func playingAgain() {
        recovery.played()
        logger.notice("playing again (reconnect \(recovery.reconnects))")
    }

    /// Why a reconnected session cannot go on with `new`: the server offers other tracks than those played
    /// (a camera reconfigured while it was away), or numbers them with other payload types, which every
    /// consumer of the sequence (depacketizers, filters) was made for. Nil when they match, codec for codec
    /// and type for type.
    static func trackChange(
        from old: [RTSPTrack], to new: [RTSPTrack]
    ) -> RTSPClientError? {
        let before = old.map { "\($0.format.encodingName)/\($0.format.payloadType)" }
        let after = new.map { "\($0.format.encodingName)/\($0.format.payloadType)" }
        guard before != after else { return nil }
        return RTSPClientError(
            .unsupported,
            "after reconnecting, the server offers the tracks [\(after.joined(separator: ", "))] (codec/payload type) "
                + "where the session played [\(before.joined(separator: ", "))]: connect again to play what it offers now"
        )
    }

    /// Ending a session that is between connections: the wait ends; a session the server may still hold is
    /// torn down on a fresh connection (bounded by ``RTSPSessionOptions/teardownTimeout``).
    func endWhileReconnecting() {
        recovery.cancelWait()
        guard let staleURL = recovery.staleSessionURL else { return finish(nil) }
        logger.debug("tearing down the session the broken connection left on the server")
        cancelTimers()
        phase = .closing
        schedule(at: now + options.teardownTimeout) { [self] in finish(nil) }
        goBack(to: staleURL)  // a redirect may have led elsewhere since: the session lives where it played
        start()  // closing: the machine only tears the stale session down
    }
}
