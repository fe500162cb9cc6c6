import RTP

/// Decoded audio: samples of every channel for one coded frame, with the coded frame's timestamp.
public struct PCMFrame: Sendable {
    /// The sample layout a decoder gives, chosen by its user.
    public enum Layout: Sendable, Hashable {
        /// 16-bit signed samples, channels interleaved (L R L R ...): what WebRTC's audio sources take.
        case int16Interleaved
        /// 32-bit float samples from -1 to 1, one array per channel.
        case floatPlanar
    }

    /// The samples, as the layout says.
    public enum Samples: Sendable {
        case int16Interleaved([Int16])
        case floatPlanar([[Float]])
    }

    public let samples: Samples
    public let sampleRate: Int
    public let channels: Int
    /// Samples per channel.
    public let sampleCount: Int
    /// The coded frame's timestamp: its RTP timestamp extended to 64 bits, at ``clockRate``.
    public let timestamp: UInt64
    /// The track's RTP clock rate (48000 for Opus whatever the sampling rate).
    public let clockRate: Int
    /// Whether packets were lost right before it (the decoder concealed or left a gap).
    public let followsLoss: Bool
    /// When the sender captured it, on its wall clock (from its sender reports), when known.
    public var captureTime: WallClockTime?
    /// The track of the frame it was decoded from.
    public var track = 0
    /// Whether it is its track's first frame after a break (a reconnect, a new source).
    public var isDiscontinuity = false

    public init(
        samples: Samples, sampleRate: Int, channels: Int, sampleCount: Int, timestamp: UInt64, clockRate: Int,
        followsLoss: Bool = false
    ) {
        self.samples = samples
        self.sampleRate = sampleRate
        self.channels = channels
        self.sampleCount = sampleCount
        self.timestamp = timestamp
        self.clockRate = clockRate
        self.followsLoss = followsLoss
    }

    /// The samples as interleaved 16-bit (converted from float when they are planar, rounded and clamped).
    public var int16Interleaved: [Int16] {
        switch samples {
        case .int16Interleaved(let values): return values
        case .floatPlanar(let planes):
            var out = [Int16](repeating: 0, count: sampleCount * channels)
            for (channel, plane) in planes.enumerated() {
                for (index, value) in plane.enumerated() {
                    out[index * channels + channel] = Int16(max(-32768, min(32767, (value * 32768).rounded())))
                }
            }
            return out
        }
    }

    /// The duration in seconds.
    public var duration: Double { sampleRate > 0 ? Double(sampleCount) / Double(sampleRate) : 0 }
}
