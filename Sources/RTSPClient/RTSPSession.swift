import NIOCore
import NIOPosix
import RTP
@_spi(SansIO) import RTSP
import SDP

/// A playing RTSP session: connect with ``connect(to:options:)``, read ``packets`` (or
/// ``accessUnits(track:)``), and end it with ``teardown()``.
///
/// ```swift
/// let session = try await RTSPSession.connect(to: "rtsp://user:pass@camera/stream")
/// for try await unit in try session.accessUnits() { … }
/// ```
///
/// Ending the iteration (a `break`, or cancelling the task that iterates) tears the session down:
/// TEARDOWN is sent and the sockets close. Failures arrive as ``RTSPClientError``s that say what
/// happened; they never contain the password.
public final class RTSPSession: Sendable {
    /// The URL played, without credentials.
    public let url: RTSPURL
    /// The video and audio tracks set up, in ``RTSPReceivedPacket/track`` order, with the transports agreed; the
    /// ONVIF backchannel (``RTSPTrack/isBackchannel``, when asked for) last, after every track the camera sends.
    public let tracks: [RTSPTrack]
    /// The session description of the DESCRIBE answer.
    public let sessionDescription: SessionDescription?
    /// The IP address (IPv4 dotted or IPv6 text) of the server the RTSP connection reached, after name
    /// resolution and redirects; nil if the connection had already closed.
    public let serverAddress: String?
    /// The RTP packets of every track, in arrival order. Iterate it once: it is a single-consumer sequence.
    public let packets: RTSPPackets
    /// What happens to the session as it happens: playing, a break and its cause, each attempt to play
    /// again and its wait, playing again with the gap, the end. Iterate it once (the newest 256 events are
    /// kept for a consumer that lags); it ends with ``RTSPSessionEvent/ended(_:)``. Events before `connect`
    /// returned (first connects retried with ``RTSPSessionOptions/Reconnection/includesFirstConnect``) are
    /// in it too.
    public var events: AsyncStream<RTSPSessionEvent> { driver.events }
    /// The ONVIF audio backchannel, when ``RTSPSessionOptions/backchannel`` asked for it and the camera set one up
    /// in a codec this library sends (G.711, AAC, Opus, L16, G.722, G.726); nil otherwise.
    public let backchannel: RTSPBackchannel?
    let driver: SessionDriver

    private init(
        driver: SessionDriver, tracks: [RTSPTrack], description: SessionDescription?,
        serverAddress: String?
    ) {
        var url = driver.url
        url.credentials = nil
        self.url = url
        self.driver = driver
        self.tracks = tracks
        self.sessionDescription = description
        self.serverAddress = serverAddress
        self.packets = driver.packets
        backchannel = RTSPBackchannel.find(in: tracks, driver: driver)
    }

    deinit {
        let driver = self.driver
        driver.eventLoop.execute { driver.teardown() }
    }

    /// Connects, authenticates when asked, and plays every video and audio track this library takes
    /// (``RTSPSessionOptions/mediaKinds``): OPTIONS, DESCRIBE, SETUP per track, PLAY. Returns when PLAY is
    /// answered.
    ///
    /// - Throws: ``RTSPClientError``: `.invalidURL` for a URL that cannot be played, before connecting; the
    ///   session's failure (connection refused, 401 after trying the credentials, no track this library
    ///   plays, timeout...);
    ///   `CancellationError` when the task is cancelled (the session is torn down).
    public static func connect(to url: String, options: RTSPSessionOptions = .init()) async throws -> RTSPSession {
        try await connect(to: parse(url), options: options)
    }

    /// A URL the user gave, or an ``RTSPClientError`` `.invalidURL` saying what is wrong with it: every
    /// failure of a session, the URL's included, is one error type.
    static func parse(_ url: String) throws(RTSPClientError) -> RTSPURL {
        do throws(RTSPError) {
            return try RTSPURL(url)
        } catch {
            throw RTSPClientError(.invalidURL, error.reason)
        }
    }

    /// Connects to a parsed URL; see ``connect(to:options:)-(String,_)``.
    public static func connect(to url: RTSPURL, options: RTSPSessionOptions = .init()) async throws -> RTSPSession {
        let driver = try await SessionDriver.prepare(url: url, options: options)
        let tracks = try await driver.awaitStep { driver.start() }
        return try await RTSPSession(playing: driver, tracks: tracks)
    }

    /// Connects and asks what the server offers (OPTIONS, DESCRIBE), nothing set up yet: choose tracks
    /// with ``RTSPDescribedSession/setup(tracks:)``, then ``RTSPDescribedSession/play()``.
    ///
    /// ```swift
    /// let described = try await RTSPSession.describe("rtsp://camera/stream")
    /// let h265 = described.offeredTracks.indices.filter { described.offeredTracks[$0].format.videoFormat?.codec ==
    /// .h265 }
    /// try await described.setup(tracks: h265)
    /// let session = try await described.play()
    /// ```
    ///
    /// - Throws: as ``connect(to:options:)-(String,_)`` does.
    public static func describe(_ url: String, options: RTSPSessionOptions = .init()) async throws
        -> RTSPDescribedSession
    {
        try await describe(parse(url), options: options)
    }

    /// Describes a parsed URL; see ``describe(_:options:)-(String,_)``.
    public static func describe(_ url: RTSPURL, options: RTSPSessionOptions = .init()) async throws
        -> RTSPDescribedSession
    {
        let driver = try await SessionDriver.prepare(url: url, options: options)
        let offered = try await driver.awaitStep {
            driver.stepwise = true
            driver.start()
        }
        return try await RTSPDescribedSession(driver: driver, offeredTracks: offered)
    }

    /// The session of a driver that has played `tracks`.
    convenience init(playing driver: SessionDriver, tracks: [RTSPTrack]) async throws {
        let (description, address) = try await driver.eventLoop.submit {
            (driver.sessionDescription, driver.controlRemoteAddress?.ipAddress)
        }.get()
        self.init(driver: driver, tracks: tracks, description: description, serverAddress: address)
    }

    /// Sends TEARDOWN, waits for the answer (at most ``RTSPSessionOptions/teardownTimeout``) and closes
    /// the sockets; ``packets`` ends. Calling it again does nothing.
    public func teardown() async {
        let driver = self.driver
        driver.eventLoop.execute { driver.teardown() }
        try? await driver.closed.futureResult.get()
    }

    /// Asks the server to hold the media (PAUSE) and returns once it has answered; keepalives go on and
    /// silence does not count as inactivity until ``resume()``.
    ///
    /// - Throws: ``RTSPClientError`` when the session is not playing, or ends (an error answer ends it).
    public func pause() async throws {
        let driver = self.driver
        let promise = driver.eventLoop.makePromise(of: Void.self)
        driver.eventLoop.execute { driver.pauseOrResume(pausing: true, promise: promise) }
        try await promise.futureResult.get()
    }

    /// Resumes a paused session (PLAY, from where it paused) and returns once the server has answered.
    public func resume() async throws {
        let driver = self.driver
        let promise = driver.eventLoop.makePromise(of: Void.self)
        driver.eventLoop.execute { driver.pauseOrResume(pausing: false, promise: promise) }
        try await promise.futureResult.get()
    }

    /// Plays from another position of a recording (a new `Range`, scale or speed: ``PlaybackRequest``) while
    /// playing or paused, and returns once the server has answered. The units that follow are the new
    /// position's: the first of each track is flagged `isDiscontinuity`, and packets of the old position still
    /// on their way (before the answer's RTP-Info sequence number) are dropped.
    /// - Throws: ``RTSPClientError`` `.invalidCall` when the session is not playing or paused, or another
    ///   request (pause, resume, seek) is under way; the server's refusal as an error.
    public func seek(_ playback: PlaybackRequest) async throws {
        let driver = self.driver
        let promise = driver.eventLoop.makePromise(of: Void.self)
        driver.eventLoop.execute { driver.seek(playback, promise: promise) }
        try await promise.futureResult.get()
    }

    /// The `Range` the server answered the latest PLAY (or seek) with: where it actually plays from (a
    /// recording's keyframe before the position asked for, say); nil when it gave none, or one that is neither
    /// `npt=` nor `clock=` (``playedRangeHeader()`` has it as written).
    public func playedRange() async -> PlaybackRequest.Range? {
        await playedRangeHeader().flatMap { try? PlaybackRequest.Range(parsing: $0) }
    }

    /// The `Range` the server answered the latest PLAY (or seek) with, as written; nil when it gave none.
    public func playedRangeHeader() async -> String? {
        let driver = self.driver
        return try? await driver.eventLoop.submit { driver.machine.playedRange }.get()
    }

    /// Where in the recording the units played since the latest PLAY (or seek) are: ask it the position of each
    /// (``PlaybackTimeline/position(of:)``), from the answer's `Range`, `RTP-Info` and `Scale`.
    public func timeline() async -> PlaybackTimeline {
        let driver = self.driver
        return (try? await driver.eventLoop.submit { PlaybackTimeline(driver.machine) }.get())
            ?? PlaybackTimeline(start: nil, scale: 1, anchors: [:])
    }

    /// What the session has received and sent so far.
    public func statistics() async -> RTSPSessionStatistics {
        let driver = self.driver
        return (try? await driver.eventLoop.submit { driver.statistics() }.get())
            ?? RTSPSessionStatistics(
                transport: .tcp, fellBackToTCP: false, tracks: [], invalidPackets: 0, droppedByConsumer: 0,
                earlyPacketsDropped: 0, unknownChannelFrames: 0, receiverReportsSent: 0, srtpAuthFailures: 0,
                requestsSent: 0)
    }
}
