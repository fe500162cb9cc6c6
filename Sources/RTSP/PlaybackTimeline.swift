import RTP

/// Where in a played recording each unit is: from where the server plays (the PLAY answer's `Range`), each
/// track's RTP time there (its `RTP-Info`) and the scale it plays at, the position of any unit of the session,
/// as seconds into the recording (`npt` ranges) or a UTC time (`clock` ranges). Sans I/O: take one from
/// `RTSPSession.timeline()` after playing or seeking, and ask it for every unit.
///
/// ```swift
/// let timeline = await session.timeline()
/// for try await unit in try session.media() {
///     if case .npt(let seconds)? = timeline.position(of: unit) { print("at \(seconds) s") }
/// }
/// ```
///
/// An ONVIF replay's units carry the time they were recorded in `captureTime` already (its 0xABAC extension).
public struct PlaybackTimeline: Sendable, Hashable {
    /// A unit's position in the recording.
    public enum Position: Sendable, Hashable {
        /// Seconds from the recording's start.
        case npt(Double)
        /// The UTC time it was recorded at.
        case clock(WallClockTime)
    }

    /// Where playing started, as the server answered (`Range`); nil when it gave none (or none this reads).
    public let start: PlaybackRequest.Range?
    /// The scale it plays at: the answer's `Scale`, else the one asked, else 1. Negative: backwards.
    public let scale: Double
    /// Each track's RTP time at the start and its clock rate, by track index (tracks without `RTP-Info` have
    /// none).
    public let anchors: [Int: Anchor]

    /// A track's RTP time at the start of playing, and its clock.
    public struct Anchor: Sendable, Hashable {
        public var rtpTime: UInt32
        public var clockRate: Int

        public init(rtpTime: UInt32, clockRate: Int) {
            self.rtpTime = rtpTime
            self.clockRate = clockRate
        }
    }

    public init(start: PlaybackRequest.Range?, scale: Double, anchors: [Int: Anchor]) {
        self.start = start
        self.scale = scale.isFinite && scale != 0 ? scale : 1
        self.anchors = anchors
    }

    /// The timeline of a client's latest PLAY answer (its tracks' `RTP-Info`, `Range` and `Scale`).
    @_spi(SansIO) public init(_ machine: RTSPClientStateMachine) {
        var anchors: [Int: Anchor] = [:]
        for (index, track) in machine.tracks.enumerated() {
            guard let rtpTime = track.rtpInfo?.rtpTime else { continue }
            anchors[index] = Anchor(rtpTime: rtpTime, clockRate: track.format.clockRate)
        }
        self.init(
            start: machine.playedRange.flatMap { try? PlaybackRequest.Range(parsing: $0) },
            scale: machine.playedScale ?? machine.configuration.playback?.scale ?? 1, anchors: anchors)
    }

    /// Where `unit` (a unit of track `track`, at RTP time `rtpTimestamp`) is in the recording; nil without a start
    /// or an anchor for its track.
    public func position(track: Int, rtpTimestamp: UInt32) -> Position? {
        guard let start, let anchor = anchors[track], anchor.clockRate > 0 else { return nil }
        let ticks = Int64(Int32(bitPattern: rtpTimestamp &- anchor.rtpTime))
        let seconds = Double(ticks) / Double(anchor.clockRate) * scale
        switch start {
        case .npt(let from, _): return .npt(max(0, from + seconds))
        case .clock(let from, _): return .clock(from.adding(seconds: seconds))
        }
    }
}
