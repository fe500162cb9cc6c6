import RTP

/// Re-blocks decoded PCM into chunks of a fixed duration (10 ms by default: what a WebRTC audio source
/// takes), interleaved 16-bit, whatever the codec's frame size (1024 samples of AAC, 20 ms of Opus, 160
/// samples of G.711).
///
/// ```swift
/// var chunker = PCMChunker()
/// chunker.push(pcm)
/// while let chunk = chunker.nextChunk() { source.deliver(chunk) }   // chunk.sampleCount == rate / 100
/// ```
///
/// Each chunk's timestamp is its first sample's, at the track's clock, and its capture time is dated from
/// the latest frame that had one (the sender's wall clock). Frames lost on the way become silence of their
/// duration (``PCMGapFiller``, within its bounds), so that the chunks keep the stream's time. When the audio
/// breaks (a discontinuity, another sampling rate or channel count, a gap too long to fill, a timestamp
/// that goes back), the chunk in progress is filled with silence and handed on, and chunking starts again
/// at the new frame: the chunks never join audio across a break.
public struct PCMChunker: Sendable {
    /// A chunk's duration in milliseconds.
    public let milliseconds: Int
    private var pending: [Int16] = []
    private var pendingStart: UInt64 = 0
    private var format: (rate: Int, channels: Int, clockRate: Int)?
    /// The timestamp the next frame should have to follow on without a break.
    private var expected: UInt64?
    private var ready: [PCMFrame] = []
    private var taken = 0
    private var pendingTrack = 0
    private var pendingBreak = false
    /// The latest frame's capture time and timestamp: what dates the chunks.
    private var anchor: (time: WallClockTime, timestamp: UInt64)?
    private var gaps = PCMGapFiller()

    public init(milliseconds: Int = 10) {
        self.milliseconds = max(1, milliseconds)
    }

    private var chunkSamples: Int { (format?.rate ?? 0) * milliseconds / 1000 }

    public mutating func push(_ frame: PCMFrame) {
        if let silence = gaps.silence(before: frame) { take(silence) }
        take(frame)
    }

    private mutating func take(_ frame: PCMFrame) {
        let samples = frame.int16Interleaved
        let follows = expected.map { abs(Int64(bitPattern: frame.timestamp &- $0)) <= 1 } ?? false
        let sameFormat = format.map { $0 == (frame.sampleRate, frame.channels, frame.clockRate) } ?? false
        if !(follows && sameFormat) || frame.isDiscontinuity {
            padAndHandOn()
            format = (frame.sampleRate, frame.channels, frame.clockRate)
            pendingStart = frame.timestamp
            pendingBreak = frame.isDiscontinuity
        }
        pendingTrack = frame.track
        if let time = frame.captureTime { anchor = (time, frame.timestamp) }
        pending += samples
        expected = frame.timestamp &+ UInt64(frame.sampleCount * frame.clockRate / max(1, frame.sampleRate))
        cut()
    }

    /// The next whole chunk, if any.
    public mutating func nextChunk() -> PCMFrame? {
        guard taken < ready.count else { return nil }
        let chunk = ready[taken]
        taken += 1
        if taken == ready.count {
            ready.removeAll(keepingCapacity: true)
            taken = 0
        }
        return chunk
    }

    /// Ends the audio: the chunk in progress is filled with silence and handed on.
    public mutating func flush() {
        padAndHandOn()
        expected = nil
    }

    private mutating func cut() {
        guard let format, chunkSamples > 0 else { return }
        let size = chunkSamples * format.channels
        while pending.count >= size {
            append(Array(pending.prefix(size)))
            pending.removeFirst(size)
        }
    }

    private mutating func padAndHandOn() {
        guard let format, !pending.isEmpty, chunkSamples > 0 else { return pending.removeAll() }
        let size = chunkSamples * format.channels
        append(pending + [Int16](repeating: 0, count: size - pending.count))
        pending.removeAll(keepingCapacity: true)
    }

    private mutating func append(_ samples: [Int16]) {
        guard let format else { return }
        var chunk = PCMFrame(
            samples: .int16Interleaved(samples), sampleRate: format.rate, channels: format.channels,
            sampleCount: chunkSamples, timestamp: pendingStart, clockRate: format.clockRate)
        chunk.track = pendingTrack
        chunk.isDiscontinuity = pendingBreak
        chunk.captureTime = anchor.map {
            $0.time.adding(
                seconds: Double(Int64(bitPattern: pendingStart &- $0.timestamp)) / Double(max(1, format.clockRate)))
        }
        pendingBreak = false
        ready.append(chunk)
        pendingStart &+= UInt64(chunkSamples * format.clockRate / format.rate)
    }
}
