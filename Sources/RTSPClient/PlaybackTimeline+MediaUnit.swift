import MediaPipeline
@_spi(SansIO) import RTSP

extension PlaybackTimeline {
    /// Where `unit` is in the recording; nil without the answer's start or its track's `RTP-Info`.
    public func position(of unit: MediaUnit) -> Position? {
        position(track: unit.track, rtpTimestamp: UInt32(truncatingIfNeeded: unit.timestamp))
    }
}
