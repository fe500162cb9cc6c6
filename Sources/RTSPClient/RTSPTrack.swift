import MediaPipeline
import RTSP

/// A track of a session: its format (from the SDP), its control URL, the transport the server agreed to, and
/// where it started (RTP-Info). What ``RTSPSession/tracks`` holds; the sans-I/O state machine's own type.
public typealias RTSPTrack = RTSPClientStateMachine.Track

extension PlaybackTimeline {
    /// Where `unit` is in the recording; nil without the answer's start or its track's `RTP-Info`.
    public func position(of unit: MediaUnit) -> Position? {
        position(track: unit.track, rtpTimestamp: UInt32(truncatingIfNeeded: unit.timestamp))
    }
}
