/// What happens to a session, told as it happens (``RTSPSession/events``): for an application that marks
/// where its recording has a gap, or tells its user that the camera went away and came back, without
/// polling ``RTSPSession/statistics()``.
public enum RTSPSessionEvent: Sendable {
    /// PLAY was answered for the first time: the tracks play.
    case playing
    /// The session broke, and why (the first failure of the break, not a later attempt's). A session without
    /// ``RTSPSessionOptions/reconnection`` ends next.
    case broke(RTSPClientError)
    /// A reconnecting session tries again after `delay`; `attempt` counts from 1 since it last played.
    case retrying(attempt: Int, delay: Duration)
    /// PLAY was answered again after a break; `gap`: from the last packet before the break to now.
    case resumed(gap: Duration)
    /// Nothing (no RTP, no RTCP) has arrived for ``RTSPSessionOptions/stallThreshold`` while playing: the camera
    /// or the network stalls, before ``RTSPSessionOptions/inactivityTimeout`` calls it a break. `silence`: since the
    /// last packet.
    case stalled(silence: Duration)
    /// Media arrives again after ``stalled(silence:)``; `gap`: from the last packet before the stall to this one.
    /// (A stall that becomes a break is told by ``broke(_:)``, and its end by ``resumed(gap:)``.)
    case recovered(gap: Duration)
    /// `track` lost `fraction` of its packets over the last ``RTSPSessionOptions/lossWindow``, at or past
    /// ``RTSPSessionOptions/lossThreshold``: the network drops packets (over UDP, try TCP). Told once until
    /// ``lossCleared(track:)``.
    case lossy(track: Int, fraction: Double)
    /// `track`'s loss over a whole window came back under ``RTSPSessionOptions/lossThreshold``.
    case lossCleared(track: Int)
    /// Video `track`'s parameter sets (SPS, PPS; and VPS for H.265) changed at a keyframe: a camera reconfigured
    /// (another bitrate, profile or picture size), or a decoder must be made anew. Told by the units' consumer as it
    /// takes that keyframe; a picture size that changed is told next, by ``resolutionChanged(track:width:height:)``.
    case parameterSetsChanged(track: Int)
    /// Video `track`'s pictures are now `width` by `height` (its new sequence parameter set's).
    case resolutionChanged(track: Int, width: Int, height: Int)
    /// `track`'s sender stepped its wall clock by `by` (a camera setting its clock, an NTP correction): the capture
    /// times its sender reports give the units moved by that much against their RTP time, past
    /// ``RTSPSessionOptions/clockJumpThreshold``. Told by the units' consumer as it takes the first unit dated anew.
    case clockJumped(track: Int, by: Duration)
    /// The session is over: nil when it was torn down (by the caller, or after the server's RTCP BYE),
    /// else why it failed. The last event.
    case ended(RTSPClientError?)
}
