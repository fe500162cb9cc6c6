/// Keeps decoded audio on the stream's time across loss: for each gap in the timestamps (frames lost, or
/// left out because a piece of them was), the silence of its duration, so that whatever plays or writes the
/// PCM sample by sample (a WAV file, a WebRTC audio source) stays where the sender's clock says.
///
/// ```swift
/// var filler = PCMGapFiller()
/// try decoder.decode(frame) { pcm in
///     if let silence = filler.silence(before: pcm) { out.append(silence) }
///     out.append(pcm)
/// }
/// ```
///
/// Silence is bounded, because timestamps come from the peer: a gap longer than ``maxGapSeconds`` is left
/// unfilled, and so is one that would take the silence past the audio actually decoded plus
/// ``maxGapSeconds`` (a few bytes of hostile packets never become gigabytes). Nothing is filled across a
/// break (``PCMFrame/isDiscontinuity``, another track, rate or channel count), where the timestamps start
/// anew; a frame whose timestamp goes back is let through as it is. Gaps left unfilled are counted.
package struct PCMGapFiller: Sendable {
    /// The longest gap filled, in seconds.
    package static let maxGapSeconds = 10

    /// Samples per channel of silence given so far.
    package private(set) var silenceSamples = 0
    /// Gaps left unfilled: too long, or past the bound.
    package private(set) var unfilledGaps = 0

    private struct Expected {
        var timestamp: UInt64
        var sampleRate: Int
        var channels: Int
        var clockRate: Int
        var track: Int
        var layout: PCMFrame.Layout
    }

    private var expected: Expected?
    /// Samples per channel decoded so far: what bounds the silence.
    private var decodedSamples = 0

    package init() {}

    /// The silence that belongs right before `pcm`, if there is a gap to fill; then `pcm` is taken as the
    /// stream's latest frame.
    package mutating func silence(before pcm: PCMFrame) -> PCMFrame? {
        defer { note(pcm) }
        guard let last = expected, !pcm.isDiscontinuity, last.track == pcm.track, last.sampleRate == pcm.sampleRate,
            last.channels == pcm.channels, last.clockRate == pcm.clockRate, pcm.sampleRate > 0, pcm.clockRate > 0
        else { return nil }
        let ticks = Int64(bitPattern: pcm.timestamp &- last.timestamp)
        // A tick is the rounding of the last frame's duration to the clock: on time. A frame that starts
        // before the last one ended (a decoder's first frame, shifted by its priming) overlaps: no gap.
        guard ticks > 1 else { return nil }
        guard ticks <= Int64(Self.maxGapSeconds) * Int64(pcm.clockRate) else {
            unfilledGaps += 1
            return nil
        }
        // ticks ≤ 10 s of a clock the SDP bounds, times a sampling rate: far inside an Int.
        let samples = Int((ticks * Int64(pcm.sampleRate) + Int64(pcm.clockRate) / 2) / Int64(pcm.clockRate))
        guard samples > 0 else { return nil }
        guard silenceSamples + samples <= decodedSamples + Self.maxGapSeconds * pcm.sampleRate else {
            unfilledGaps += 1
            return nil
        }
        silenceSamples += samples
        let values: PCMFrame.Samples =
            switch last.layout {
            case .int16Interleaved: .int16Interleaved([Int16](repeating: 0, count: samples * pcm.channels))
            case .floatPlanar:
                .floatPlanar([[Float]](repeating: [Float](repeating: 0, count: samples), count: pcm.channels))
            }
        var silence = PCMFrame(
            samples: values, sampleRate: pcm.sampleRate, channels: pcm.channels, sampleCount: samples,
            timestamp: last.timestamp, clockRate: pcm.clockRate, followsLoss: true)
        silence.track = pcm.track
        silence.captureTime = pcm.captureTime?.adding(seconds: -Double(ticks) / Double(pcm.clockRate))
        return silence
    }

    private mutating func note(_ pcm: PCMFrame) {
        decodedSamples += pcm.sampleCount
        let layout: PCMFrame.Layout =
            switch pcm.samples {
            case .int16Interleaved: .int16Interleaved
            case .floatPlanar: .floatPlanar
            }
        let ticks = pcm.sampleRate > 0 ? UInt64(pcm.sampleCount) * UInt64(pcm.clockRate) / UInt64(pcm.sampleRate) : 0
        let end = pcm.timestamp &+ ticks
        // A frame that went back leaves the expected time where it was: the stream has not moved back.
        if let last = expected, last.track == pcm.track, !pcm.isDiscontinuity,
            Int64(bitPattern: end &- last.timestamp) < 0
        {
            return
        }
        expected = Expected(
            timestamp: end, sampleRate: pcm.sampleRate, channels: pcm.channels, clockRate: pcm.clockRate,
            track: pcm.track, layout: layout)
    }
}
