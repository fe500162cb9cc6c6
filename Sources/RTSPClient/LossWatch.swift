import RTP

/// Tells sustained loss on a session's tracks: over each window, the share of the packets a track's sequence
/// numbers expected that never came. At or past the threshold the track is told lossy
/// (``RTSPSessionEvent/lossy(track:fraction:)``), and clear again (``RTSPSessionEvent/lossCleared(track:)``) at
/// the end of the first window back under it. A window in which a track expected nothing (paused, stalled: told
/// as such) says nothing of it. Sans-I/O: the driver gives it the statistics and the time.
struct LossWatch {
    let threshold: Double
    let window: Duration
    private var windowStart: ArrivalTime?
    private var base: [(packets: UInt64, lost: Int64)] = []
    private var lossy: Set<Int> = []

    init(threshold: Double, window: Duration) {
        self.threshold = threshold
        self.window = window
    }

    /// The events of the window that ends at `now`, if one does.
    mutating func observe(_ tracks: [RTSPSessionStatistics.Track], now: ArrivalTime) -> [RTSPSessionEvent] {
        guard let start = windowStart, base.count == tracks.count else {
            restart(tracks, at: now)
            return []
        }
        guard now - start >= window else { return [] }
        var events: [RTSPSessionEvent] = []
        for (index, track) in tracks.enumerated() where track.packets >= base[index].packets {
            let received = track.packets - base[index].packets
            let lost = UInt64(max(0, track.lost - base[index].lost))
            guard received + lost > 0 else { continue }
            let fraction = Double(lost) / Double(received + lost)
            if fraction >= threshold, lossy.insert(index).inserted {
                events.append(.lossy(track: index, fraction: fraction))
            } else if fraction < threshold, lossy.remove(index) != nil {
                events.append(.lossCleared(track: index))
            }
        }
        restart(tracks, at: now)
        return events
    }

    private mutating func restart(_ tracks: [RTSPSessionStatistics.Track], at now: ArrivalTime) {
        windowStart = now
        base = tracks.map { ($0.packets, $0.lost) }
    }
}
