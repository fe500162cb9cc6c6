import RTP

/// What an MP4 file holds, indexed: its tracks, every sample's place in the file and its times, its keyframes,
/// and the wall clock its `prft` boxes anchor (ISO/IEC 14496-12). Read from a plain file (the sample tables of
/// `moov`) or a fragmented one (each `moof`'s runs, as this library's recordings are written); a fragmented
/// file cut short (a recording still being written, or a crash) is read up to its last whole fragment.
///
/// Built from the boxes alone: no sample's bytes are read (``MP4FileReader`` reads them). A seek is a binary
/// search of the keyframes (``Track/keyframe(atOrBefore:)``), not a scan.
public struct MP4Index: Sendable {
    /// How much of a file is believed: a file that claims more is refused with ``MP4Error/Code/invalidFile``.
    public struct Limits: Sendable, Hashable {
        /// Tracks in the file.
        public var maxTracks: Int
        /// Samples per track (32 bytes of index each).
        public var maxSamplesPerTrack: Int
        /// Bytes of one `moov` or `moof` box, read whole.
        public var maxHeaderBoxBytes: Int

        public init(maxTracks: Int = 16, maxSamplesPerTrack: Int = 4_000_000, maxHeaderBoxBytes: Int = 64 << 20) {
            self.maxTracks = max(1, maxTracks)
            self.maxSamplesPerTrack = max(1, maxSamplesPerTrack)
            self.maxHeaderBoxBytes = max(1024, maxHeaderBoxBytes)
        }
    }

    /// One sample: where its bytes are and when it plays, in its track's timescale.
    public struct Sample: Sendable, Hashable {
        /// Where its bytes start in the file.
        public var offset: UInt64
        public var size: UInt32
        /// When it is decoded.
        public var decodeTime: Int64
        /// Presentation minus decode time (B-frames; 0 without them).
        public var compositionOffset: Int32
        public var duration: UInt32
        /// A keyframe (a sync sample): decoding can start here.
        public var isSync: Bool

        /// When it is shown (a file's times near 2^63 stop there rather than wrap).
        public var presentationTime: Int64 { Self.saturating(decodeTime, Int64(compositionOffset)) }

        /// When it ends.
        public var endTime: Int64 { Self.saturating(presentationTime, Int64(duration)) }

        static func saturating(_ a: Int64, _ b: Int64) -> Int64 {
            let (sum, overflow) = a.addingReportingOverflow(b)
            return overflow ? (b > 0 ? .max : .min) : sum
        }
    }

    /// One track.
    public struct Track: Sendable {
        public enum Kind: Sendable, Hashable {
            case video, audio, other
        }

        /// The track's ID (`tkhd`).
        public let id: UInt32
        public let kind: Kind
        /// The first sample entry's four-character code: `avc1`, `hvc1`, `hev1`, `mp4a`, `ulaw`, `alaw`, `Opus`,
        /// `jpeg`, ...
        public let codec: String
        /// Ticks per second of the track's times (`mdhd`).
        public let timescale: UInt32
        /// The sample entry's configuration box payload: `avcC`, `hvcC`, `esds` or `dOps`; empty when it has none.
        public let configuration: [UInt8]
        /// Video: the sample entry's picture size.
        public let width: Int
        public let height: Int
        /// Audio: the sample entry's channel count and rate (Hz). (MP4's entry for AAC carries the template count 2:
        /// the configuration's own is the real one.)
        public let channels: Int
        public let sampleRate: Int
        /// The media time at which the track's presentation starts (the first edit of its edit list; 0 without
        /// one): a B-frame delay or AAC's priming, which a player skips.
        public let presentationStart: Int64
        /// Every sample, in decoding order.
        public internal(set) var samples: [Sample]
        /// The indices of the keyframes, by presentation time.
        public private(set) var keyframes: [Int] = []
        /// The earliest presentation time of a sample (the presentation start when there is none).
        private(set) var earliestPresentation: Int64 = 0

        init(header: TrackHeader, samples: [Sample]) {
            id = header.id
            kind = header.kind
            codec = header.codec
            timescale = header.timescale
            configuration = header.configuration
            width = header.width
            height = header.height
            channels = header.channels
            sampleRate = header.sampleRate
            presentationStart = header.presentationStart
            self.samples = samples
        }

        mutating func indexKeyframes() {
            earliestPresentation = samples.map(\.presentationTime).min() ?? presentationStart
            keyframes = samples.indices.filter { samples[$0].isSync }
            keyframes.sort { samples[$0].presentationTime < samples[$1].presentationTime }
        }

        /// The keyframe shown at or last before `presentationTime` (the one a seek to that time decodes from);
        /// the first keyframe when the time is before every one; nil when the track has none.
        public func keyframe(atOrBefore presentationTime: Int64) -> Int? {
            var (low, high) = (0, keyframes.count)
            while low < high {
                let middle = (low + high) / 2
                if samples[keyframes[middle]].presentationTime <= presentationTime {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            return low > 0 ? keyframes[low - 1] : keyframes.first
        }

        /// Seconds from the track's presentation start (``presentationStart``) to `presentationTime`.
        public func seconds(at presentationTime: Int64) -> Double {
            (Double(presentationTime) - Double(presentationStart)) / Double(timescale)
        }

        /// The presentation time `seconds` after the track's presentation start, to the nearest tick.
        public func presentationTime(atSeconds seconds: Double) -> Int64 {
            let ticks = (seconds * Double(timescale)).rounded()
            guard ticks.isFinite else { return seconds > 0 ? .max : presentationStart }
            return Sample.saturating(presentationStart, Int64(max(-9e18, min(9e18, ticks))))
        }

        /// The track's first and last presentation times (the last sample's end), in its timescale.
        public var presentationRange: Range<Int64>? {
            guard !samples.isEmpty, let end = samples.map(\.endTime).max() else { return nil }
            let first = earliestPresentation
            return first..<max(first, end)
        }
    }

    /// A `prft` box: the sender's wall clock at a time of one track.
    public struct WallClockAnchor: Sendable, Hashable {
        public var trackID: UInt32
        public var wallClock: WallClockTime
        /// The track's time (its timescale) that `wallClock` names.
        public var mediaTime: Int64
    }

    public private(set) var tracks: [Track]
    /// The file's `prft` boxes, in file order.
    public private(set) var wallClockAnchors: [WallClockAnchor]
    /// Whether the file's last box ended before its size said (a recording cut short): what came before is
    /// indexed.
    public private(set) var isTruncated: Bool
    /// Each track's anchors, in file order, and whether their media times rise (then a lookup is a binary search:
    /// a served recording asks for every unit).
    private var anchorsByTrack: [UInt32: (anchors: [WallClockAnchor], rising: Bool)] = [:]

    init(tracks: [Track], wallClockAnchors: [WallClockAnchor], isTruncated: Bool) {
        self.tracks = tracks
        self.wallClockAnchors = wallClockAnchors
        self.isTruncated = isTruncated
        for i in self.tracks.indices { self.tracks[i].indexKeyframes() }
        for (id, anchors) in Dictionary(grouping: wallClockAnchors, by: \.trackID) {
            anchorsByTrack[id] = (
                anchors, zip(anchors, anchors.dropFirst()).allSatisfy { $0.mediaTime <= $1.mediaTime }
            )
        }
    }

    /// The last anchor of `trackID` in file order at or before `mediaTime`, else its first.
    private func anchor(atOrBefore mediaTime: Int64, track trackID: UInt32) -> WallClockAnchor? {
        guard let (anchors, rising) = anchorsByTrack[trackID] else { return nil }
        guard rising else { return anchors.last(where: { $0.mediaTime <= mediaTime }) ?? anchors.first }
        var (low, high) = (0, anchors.count)
        while low < high {
            let middle = (low + high) / 2
            if anchors[middle].mediaTime <= mediaTime { low = middle + 1 } else { high = middle }
        }
        return low > 0 ? anchors[low - 1] : anchors.first
    }

    /// The wall-clock time of `mediaTime` in the track `trackID`: from the last anchor of that track at or before
    /// it (the first anchor when none is before), at the track's rate. Nil when the file has no anchor for it.
    public func wallClock(atMediaTime mediaTime: Int64, track trackID: UInt32) -> WallClockTime? {
        guard let track = tracks.first(where: { $0.id == trackID }), track.timescale > 0,
            let anchor = anchor(atOrBefore: mediaTime, track: trackID)
        else { return nil }
        return anchor.wallClock.adding(
            seconds: (Double(mediaTime) - Double(anchor.mediaTime)) / Double(track.timescale))
    }

    /// The time of track `trackID` (its timescale) that the wall clock read `wallClock`: from the last anchor of that
    /// track at or before it (the first when none is), the inverse of ``wallClock(atMediaTime:track:)``. Nil when
    /// the file has no anchor for it.
    public func mediaTime(at wallClock: WallClockTime, track trackID: UInt32) -> Int64? {
        guard let track = tracks.first(where: { $0.id == trackID }), track.timescale > 0 else { return nil }
        guard let anchors = anchorsByTrack[trackID]?.anchors,
            let anchor = anchors.last(where: { $0.wallClock <= wallClock }) ?? anchors.first
        else { return nil }
        let seconds = wallClock.secondsSince1970 - anchor.wallClock.secondsSince1970
        let ticks = (seconds * Double(track.timescale)).rounded()
        guard ticks.isFinite, abs(ticks) < 1e18 else { return nil }
        return MP4Index.Sample.saturating(anchor.mediaTime, Int64(ticks))
    }
}
