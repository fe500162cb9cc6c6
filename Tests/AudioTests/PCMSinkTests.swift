import Audio
import AudioDecoding
import RTP
import Testing

/// The PCM sinks: 10 ms chunks for a WebRTC audio source, a queue with back-pressure, an async stream.
@Suite struct PCMSinkTests {
    /// AAC's 1024-sample frames at 48 kHz become 480-sample chunks holding the same samples in order, each
    /// stamped with its first sample's time; the last is filled with silence at the end.
    @Test func chunksHoldTheSameSamplesTenMillisecondsEach() throws {
        let pcm = try AudioDecodingTests.decode("audio-aac-gst", layout: .int16Interleaved)
        var chunker = PCMChunker()
        var chunks: [PCMFrame] = []
        for frame in pcm {
            chunker.push(frame)
            while let chunk = chunker.nextChunk() { chunks.append(chunk) }
        }
        chunker.flush()
        while let chunk = chunker.nextChunk() { chunks.append(chunk) }
        let all = pcm.flatMap(\.int16Interleaved)
        let total = pcm.reduce(0) { $0 + $1.sampleCount }
        #expect(chunks.count == (total + 479) / 480)
        #expect(chunks.allSatisfy { $0.sampleCount == 480 && $0.channels == 2 && $0.sampleRate == 48000 })
        let joined = chunks.flatMap(\.int16Interleaved)
        #expect(Array(joined.prefix(all.count)) == all)
        #expect(joined.dropFirst(all.count).allSatisfy { $0 == 0 })
        let start = try #require(pcm.first?.timestamp)
        #expect(chunks.enumerated().allSatisfy { $1.timestamp == start + UInt64($0 * 480) })
    }

    /// A frame lost on the way is silence of its duration: the chunks keep the stream's time (a WebRTC
    /// source reading them stays in step with the sender). A gap too long to fill, or a timestamp that goes
    /// back, ends the chunk in progress instead: no chunk joins audio from both sides of a break.
    @Test func aLostFrameIsSilenceAndABreakEndsTheChunk() {
        func frame(_ timestamp: UInt64, value: Int16, followsLoss: Bool = false) -> PCMFrame {
            PCMFrame(
                samples: .int16Interleaved([Int16](repeating: value, count: 160)), sampleRate: 8000, channels: 1,
                sampleCount: 160, timestamp: timestamp, clockRate: 8000, followsLoss: followsLoss)
        }
        var chunker = PCMChunker()
        var chunks: [PCMFrame] = []
        let frames = [
            frame(0, value: 1), frame(160, value: 2), frame(480, value: 3, followsLoss: true),
            frame(640, value: 4), frame(640 + 11 * 8000, value: 5, followsLoss: true),
        ]
        for pcm in frames {
            chunker.push(pcm)
            while let chunk = chunker.nextChunk() { chunks.append(chunk) }
        }
        chunker.flush()
        while let chunk = chunker.nextChunk() { chunks.append(chunk) }
        // 80 samples a chunk at 8 kHz: 1 1 | 2 2 | silence for the frame lost at 320 | 3 3 | 4 4 | then, after
        // a gap of 11 s (past the 10 s filled), 5 5 from where it starts.
        let late: UInt64 = 640 + 11 * 8000
        #expect(chunks.map(\.timestamp) == [0, 80, 160, 240, 320, 400, 480, 560, 640, 720, late, late + 80])
        #expect(chunks.map { $0.int16Interleaved[0] } == [1, 1, 2, 2, 0, 0, 3, 3, 4, 4, 5, 5])
    }

    /// Chunks keep the track and are dated on the sender's wall clock from the latest frame that was: a
    /// chunk 10 ms into a frame is captured 10 ms after it. Decoded frames carry the coded frame's track and
    /// capture time (FFmpegAudioDecoder), so a session's audio chunks line up with its video.
    @Test func chunksSayTheirTrackAndWhenTheyWereCaptured() {
        let start = WallClockTime(ntp: 3_900_000_000 << 32)
        var chunker = PCMChunker()
        var chunks: [PCMFrame] = []
        for index in 0..<3 {
            var pcm = PCMFrame(
                samples: .int16Interleaved([Int16](repeating: 7, count: 160)), sampleRate: 8000, channels: 1,
                sampleCount: 160, timestamp: UInt64(1000 + index * 160), clockRate: 8000)
            pcm.track = 2
            // The second frame has no capture time (no report yet for it): it is dated from the first.
            if index != 1 { pcm.captureTime = start.adding(seconds: Double(index) * 0.02) }
            chunker.push(pcm)
            while let chunk = chunker.nextChunk() { chunks.append(chunk) }
        }
        #expect(chunks.count == 6 && chunks.allSatisfy { $0.track == 2 })
        let offsets = chunks.map { ($0.captureTime?.secondsSince1970 ?? 0) - start.secondsSince1970 }
        for (index, offset) in offsets.enumerated() { #expect(abs(offset - Double(index) * 0.01) < 1e-6, "\(offsets)") }
    }

    @Test func theQueueSlowsTheProducerAndTheStreamKeepsTheNewest() async {
        let queue = BoundedPCMQueue(capacity: 2)
        let frame = PCMFrame(
            samples: .int16Interleaved([0]), sampleRate: 8000, channels: 1, sampleCount: 1, timestamp: 0,
            clockRate: 8000)
        let producer = Task {
            for _ in 0..<5 { await queue.push(frame) }
            await queue.finish()
        }
        var received = 0
        while await queue.next() != nil { received += 1 }
        await producer.value
        #expect(received == 5)
        let sink = AsyncPCMSink(limit: 2)
        for index in 0..<5 {
            sink.push(
                PCMFrame(
                    samples: .int16Interleaved([Int16(index)]), sampleRate: 8000, channels: 1, sampleCount: 1,
                    timestamp: UInt64(index), clockRate: 8000))
        }
        sink.finish()
        var kept: [UInt64] = []
        for await frame in sink.frames { kept.append(frame.timestamp) }
        #expect(kept == [3, 4])
    }
}
