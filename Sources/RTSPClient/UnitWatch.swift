import Audio
import H26x
import MediaPipeline
import RTP

/// What a session's units say that an application may act on, sans I/O: a video track's parameter sets changing at a
/// keyframe (and its picture size with them), and a sender's wall clock stepping against its RTP clock. Fed each unit
/// the consumer takes, it returns the events to tell.
struct UnitWatch: Sendable {
    /// How far capture times may move against RTP time between two dated units of a track.
    let clockJumpThreshold: Duration
    /// Each video track's picture size, from the sequence parameter set of its last keyframe that carried one.
    private var sizes: [Int: (width: Int, height: Int)] = [:]
    /// The video tracks a keyframe has come on.
    private var started: Set<Int> = []
    /// Each track's last dated unit: its RTP time, clock rate and capture time.
    private var dated: [Int: (timestamp: UInt64, clockRate: Int, captured: WallClockTime)] = [:]

    init(clockJumpThreshold: Duration) {
        self.clockJumpThreshold = clockJumpThreshold
    }

    /// The events `unit` tells, in order.
    mutating func watch(_ unit: MediaUnit) -> [RTSPSessionEvent] {
        var events: [RTSPSessionEvent] = []
        let track = unit.track
        if case .video(let picture) = unit, picture.isKeyframe, picture.codec.isH26x {
            let size = picture.nalUnits.lazy.compactMap { nal -> (width: Int, height: Int)? in
                guard nal.type == (picture.codec == .h264 ? 7 : 33), let sps = try? SequenceParameterSet(nal) else {
                    return nil
                }
                return (sps.width, sps.height)
            }.first
            // The first keyframe's sets are where the track starts, not a change.
            if picture.parameterSetsChanged, !started.insert(track).inserted {
                events.append(.parameterSetsChanged(track: track))
            }
            started.insert(track)
            if let size {
                if let known = sizes[track], known != size {
                    events.append(.resolutionChanged(track: track, width: size.width, height: size.height))
                }
                sizes[track] = size
            }
        }
        if let captured = unit.captureTime {
            // A break or an RTP time that jumped starts the track's time anew: nothing to compare with.
            let isNewTimeline: Bool =
                switch unit {
                case .video(let picture): picture.isDiscontinuity || picture.isTimestampJump
                case .audio(let frame): frame.isDiscontinuity || frame.isTimestampJump
                default: false
                }
            if !isNewTimeline, let last = dated[track], last.clockRate == unit.clockRate, unit.clockRate > 0 {
                let ticks = Int64(bitPattern: unit.timestamp &- last.timestamp)
                let expected = Duration.nanoseconds(ticks) * 1_000_000_000 / unit.clockRate
                let moved = Duration.microseconds(captured.microsecondsSince1970 &- last.captured.microsecondsSince1970)
                let step = moved - expected
                if step > clockJumpThreshold || step < .zero - clockJumpThreshold {
                    events.append(.clockJumped(track: track, by: step))
                }
            }
            dated[track] = (unit.timestamp, unit.clockRate, captured)
        }
        return events
    }
}
