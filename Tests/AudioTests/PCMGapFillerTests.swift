import AudioDecoding
import RTP
import Testing

/// Decoded audio keeps the stream's time across loss: a gap becomes silence of its duration, within bounds
/// a hostile stream cannot pass.
@Suite struct PCMGapFillerTests {
    static func pcm(_ timestamp: UInt64, samples: Int = 1024, rate: Int = 48000, clock: Int = 48000) -> PCMFrame {
        PCMFrame(
            samples: .int16Interleaved([Int16](repeating: 9, count: samples * 2)), sampleRate: rate, channels: 2,
            sampleCount: samples, timestamp: timestamp, clockRate: clock)
    }

    @Test func aGapBecomesSilenceOfItsDuration() throws {
        var filler = PCMGapFiller()
        _ = filler.silence(before: Self.pcm(0))
        let none = filler.silence(before: Self.pcm(1024))
        #expect(none == nil)
        // Two frames lost: 2048 samples of silence, stamped where the first lost frame began.
        let gap = filler.silence(before: Self.pcm(4096))
        let silence = try #require(gap)
        #expect(silence.timestamp == 2048 && silence.sampleCount == 2048 && silence.followsLoss)
        #expect(silence.int16Interleaved == [Int16](repeating: 0, count: 4096))
        // HE-AAC: 2048 samples at 48 kHz in 1024 ticks of a 24 kHz clock.
        var sbr = PCMGapFiller()
        _ = sbr.silence(before: Self.pcm(0, samples: 2048, clock: 24000))
        let sbrGap = sbr.silence(before: Self.pcm(3072, samples: 2048, clock: 24000))
        #expect(sbrGap?.sampleCount == 4096)
        #expect(filler.silenceSamples == 2048 && filler.unfilledGaps == 0)
    }

    @Test func nothingIsFilledAcrossABreakOrBackwards() {
        var filler = PCMGapFiller()
        _ = filler.silence(before: Self.pcm(0))
        var restarted = Self.pcm(900_000)
        restarted.isDiscontinuity = true
        let afterBreak = filler.silence(before: restarted)
        let back = filler.silence(before: Self.pcm(500))  // went back: let through
        #expect(afterBreak == nil && back == nil)
        #expect(filler.unfilledGaps == 0)
        // After the backward frame the stream is still expected where it was.
        let onTime = filler.silence(before: Self.pcm(901_024))
        #expect(onTime == nil)
    }

    /// A gap over 10 s is left; and in all, never more silence than the audio decoded plus 10 s: frames
    /// 9 s apart fill once or so, then are counted, not filled.
    @Test func silenceHasBounds() {
        var filler = PCMGapFiller()
        _ = filler.silence(before: Self.pcm(0))
        let tooLong = filler.silence(before: Self.pcm(1024 + 11 * 48000))
        #expect(tooLong == nil)
        #expect(filler.unfilledGaps == 1)
        var next: UInt64 = 1024 + 11 * 48000 + 1024
        var filled = 0
        for _ in 0..<100 {
            next += 9 * 48000
            if filler.silence(before: Self.pcm(next)) != nil { filled += 1 }
            next += 1024
        }
        #expect(filled == 1)
        #expect(filler.silenceSamples <= 10 * 48000 + 102 * 1024)
        #expect(filler.unfilledGaps == 100)
    }
}
