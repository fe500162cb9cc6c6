import H26x
import RTP

/// Dates decoded video frames from the units they were decoded from. A decoder gives a frame after the
/// units it needed (B-frames: a few later), so each track keeps the latest dated unit as a reference and a
/// frame is dated at its timestamp's distance from it. After a break (a new source, whose timestamps start
/// anywhere) the reference before it still dates the old source's last frames; a frame near neither is
/// left undated rather than dated by the wrong source.
struct FrameDating {
    struct Reference {
        var timestamp: UInt64
        var time: WallClockTime
    }

    private var current: [Int: Reference] = [:]
    private var previous: [Int: Reference] = [:]
    /// The farthest a frame is dated from a reference: past it, the frame is another source's.
    static let maxDistance: Int64 = 10 * 90_000

    /// A unit about to be decoded.
    mutating func note(_ unit: AccessUnit) {
        guard let time = unit.captureTime else { return }
        if unit.isDiscontinuity { previous[unit.track] = current[unit.track] }
        current[unit.track] = Reference(timestamp: unit.timestamp, time: time)
    }

    /// Sets a decoded frame's capture time.
    func date(_ frame: inout I420Frame) {
        for reference in [current[frame.track], previous[frame.track]] {
            guard let reference else { continue }
            let ticks = Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: frame.timestamp &- reference.timestamp)))
            guard abs(ticks) <= Self.maxDistance else { continue }
            frame.captureTime = reference.time.adding(seconds: Double(ticks) / 90_000)
            return
        }
    }
}
