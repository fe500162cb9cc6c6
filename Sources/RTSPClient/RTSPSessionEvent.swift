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
    /// The session is over: nil when it was torn down (by the caller, or after the server's RTCP BYE),
    /// else why it failed. The last event.
    case ended(RTSPClientError?)
}
