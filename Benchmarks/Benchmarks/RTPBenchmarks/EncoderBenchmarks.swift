import AudioDecoding
import Benchmark
import FFmpegDecoding
import Foundation
import SDP

/// `FFmpegAudioEncoder` over 10 s of a 440 Hz tone, 16 kHz mono 16-bit, given in 20 ms PCM frames (what a
/// backchannel sender does): AAC-LC at 16 kHz (no conversion) and Opus (converted to 48 kHz stereo). What it
/// costs beyond libavcodec's encoder is the conversion and the frames' bytes: compare with `ffmpeg -f s16le -ar
/// 16000 -ac 1 -i tone.raw -c:a aac -f null -` on the same machine (Performance.md).
func encoderBenchmarks() {
    let rate = 16000
    let tone = (0..<(10 * rate)).map { Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / Double(rate))) }
    let chunks = stride(from: 0, to: tone.count, by: rate / 50).map { start in
        PCMFrame(
            samples: .int16Interleaved(Array(tone[start..<min(tone.count, start + rate / 50)])), sampleRate: rate,
            channels: 1,
            sampleCount: min(rate / 50, tone.count - start), timestamp: UInt64(start), clockRate: rate)
    }
    var aac = AudioFormat(codec: .aac, payloadType: 96, clockRate: 16000)
    aac.config = "1408"
    let opus = AudioFormat(codec: .opus, payloadType: 97, clockRate: 48000, channels: 2)
    for (name, format) in [("AAC-LC 16 kHz mono", aac), ("Opus 48 kHz stereo", opus)] {
        Benchmark(
            "FFmpegAudioEncoder \(name), 10 s of 16 kHz PCM in 20 ms frames (per pass)",
            configuration: .init(metrics: [.wallClock, .cpuUser, .mallocCountTotal], scalingFactor: .one)
        ) { benchmark in
            guard let encoder = try? FFmpegAudioEncoder(format: format) else { return }
            var bytes = 0
            benchmark.startMeasurement()
            for chunk in chunks { try? encoder.encode(chunk) { bytes &+= $0.bytes.count } }
            try? encoder.drain { bytes &+= $0.bytes.count }
            benchmark.stopMeasurement()
            precondition(bytes > 0, "nothing encoded: the benchmark measures nothing")
            blackHole(bytes)
        }
    }
}
