import Audio
import AudioDecoding
import FFmpegDecoding
import Foundation
import SDP
import TestSupport
import Testing
import VideoDecoding

/// The encoder against FFmpeg's command line encoding the same WAV (`-f framemd5`: each packet's timestamp,
/// duration, size and MD5): the same packets, dated as FFmpeg dates them.
@Suite struct FFmpegAudioEncoderTests {
    /// `seconds` of a 440 Hz tone at `rate`, mono 16-bit, as FFmpeg writes it; and its samples.
    static func tone(rate: Int, seconds: Double = 1.5) async throws -> (wav: URL, samples: [Int16]) {
        let wav = FileManager.default.temporaryDirectory.appendingPathComponent("encoder-\(UUID()).wav")
        let run = try await runProgram(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds)", "-ar", "\(rate)", "-ac",
                "1", "-c:a", "pcm_s16le", wav.path,
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let file = [UInt8](try Data(contentsOf: wav))
        let contents = try WAVHeader.read(file)
        let samples = stride(from: contents.data.lowerBound, to: contents.data.upperBound - 1, by: 2).map {
            Int16(bitPattern: UInt16(file[$0]) | UInt16(file[$0 + 1]) << 8)
        }
        return (wav, samples)
    }

    /// FFmpeg's packets of `wav` encoded with `arguments`: (pts, duration, size, md5) each.
    static func ffmpegPackets(_ wav: URL, _ arguments: [String]) async throws -> [(
        pts: Int64, duration: Int, size: Int, md5: String
    )] {
        let run = try await runProgram(
            "/usr/bin/ffmpeg", ["-v", "error", "-i", wav.path] + arguments + ["-f", "framemd5", "-"])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            // Side data (Opus's discarded padding on its last packet) follows the six fields.
            guard fields.count >= 6, let pts = Int64(fields[2]), let duration = Int(fields[3]),
                let size = Int(fields[4])
            else { return nil }
            return (pts, duration, size, fields[5])
        }
    }

    /// `samples` through the encoder in 20 ms PCM frames, then drained.
    static func encode(_ samples: [Int16], rate: Int, format: AudioFormat) throws -> [AudioFrame] {
        let encoder = try FFmpegAudioEncoder(format: format)
        var frames: [AudioFrame] = []
        var taken = 0
        while taken < samples.count {
            let count = min(rate / 50, samples.count - taken)
            let pcm = PCMFrame(
                samples: .int16Interleaved(Array(samples[taken..<taken + count])), sampleRate: rate, channels: 1,
                sampleCount: count,
                timestamp: UInt64(taken), clockRate: rate)
            try encoder.encode(pcm) { frames.append($0) }
            taken += count
        }
        try encoder.drain { frames.append($0) }
        #expect(encoder.framesEncoded == frames.count)
        return frames
    }

    static func md5(_ bytes: some Collection<UInt8>) -> String {
        var digest = MD5()
        Array(bytes).withUnsafeBytes { digest.update($0) }
        return "\(digest.finalize())"
    }

    /// AAC-LC, 16 kHz mono (the config a camera's backchannel announces): FFmpeg's `aac` packets, the
    /// priming frame first, each dated 1024 after the one before.
    @Test func aacIsFFmpegsPacketForPacket() async throws {
        let (wav, samples) = try await Self.tone(rate: 16000)
        defer { try? FileManager.default.removeItem(at: wav) }
        var format = AudioFormat(codec: .aac, payloadType: 96, clockRate: 16000)
        format.config = "1408"
        format.mode = "AAC-hbr"
        let frames = try Self.encode(samples, rate: 16000, format: format)
        let reference = try await Self.ffmpegPackets(wav, ["-c:a", "aac"])
        #expect(frames.count == reference.count && frames.count > 20)
        for (frame, packet) in zip(frames, reference) {
            #expect(frame.bytes.count == packet.size && Self.md5(frame.bytes) == packet.md5)
            #expect(Int64(frame.timestamp) == packet.pts - reference[0].pts && frame.sampleCount == packet.duration)
            #expect(frame.codec == .aac && frame.clockRate == 16000)
        }
    }

    /// Opus from 16 kHz mono PCM: converted to 48 kHz stereo as FFmpeg's command line converts it, then
    /// libopus's packets, 20 ms each, the last as long as the input's end (its padding discarded).
    @Test func opusIsFFmpegsLibopusPacketForPacket() async throws {
        let (wav, samples) = try await Self.tone(rate: 16000)
        defer { try? FileManager.default.removeItem(at: wav) }
        let format = AudioFormat(codec: .opus, payloadType: 97, clockRate: 48000, channels: 2)
        let frames: [AudioFrame]
        do {
            frames = try Self.encode(samples, rate: 16000, format: format)
        } catch let error as AudioEncodingError where error.code == .encoderUnavailable {
            Issue.record("this FFmpeg has no libopus: \(error)")
            return
        }
        let reference = try await Self.ffmpegPackets(wav, ["-c:a", "libopus", "-ar", "48000", "-ac", "2"])
        #expect(frames.count == reference.count && frames.count > 50)
        for (frame, packet) in zip(frames, reference) {
            #expect(frame.bytes.count == packet.size && Self.md5(frame.bytes) == packet.md5)
            #expect(Int64(frame.timestamp) == packet.pts - reference[0].pts && frame.sampleCount == packet.duration)
        }
    }

    /// G.711, G.722 and G.726 from PCM at another rate: FFmpeg's code words, the same bytes in all (their
    /// frames are cut where each chose), G.722's timestamps on its 8000 Hz clock.
    @Test(arguments: [
        (["-c:a", "pcm_mulaw"], AudioFormat(codec: .pcmu, payloadType: 0, clockRate: 8000), 8000),
        (["-c:a", "pcm_alaw"], AudioFormat(codec: .pcma, payloadType: 8, clockRate: 8000), 8000),
        (["-c:a", "g722"], AudioFormat(codec: .g722, payloadType: 9, clockRate: 8000), 8000),
        (["-c:a", "g726le", "-b:a", "32k"], AudioFormat.g726(payloadType: 97, bitsPerSample: 4), 4000),
    ])
    func sampleCodecsAreFFmpegsCodeWords(encoder arguments: [String], format: AudioFormat, bytesASecond: Int)
        async throws
    {
        let (wav, samples) = try await Self.tone(rate: 48000, seconds: 1)
        defer { try? FileManager.default.removeItem(at: wav) }
        let frames = try Self.encode(samples, rate: 48000, format: format)
        let reference = try await Self.ffmpegPackets(wav, arguments + ["-ar", "\(format.sampleRate)"])
        let bytes = frames.flatMap(\.bytes)
        #expect(bytes.count == reference.reduce(0) { $0 + $1.size } && bytes.count == bytesASecond)
        // The frames' bytes, hashed as FFmpeg cut them.
        var offset = 0
        for packet in reference {
            #expect(Self.md5(bytes[offset..<min(bytes.count, offset + packet.size)]) == packet.md5)
            offset += packet.size
        }
        #expect(frames.allSatisfy { $0.sampleCount == format.sampleRate / 50 })
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $1.timestamp - $0.timestamp == 160 })
    }

    /// What it cannot make says why; a drained encoder takes nothing more; a PCM frame shorter than it says
    /// is refused, not read past.
    @Test func refusalsSayWhy() throws {
        var latm = AudioFormat(codec: .aacLATM, payloadType: 96, clockRate: 16000)
        latm.config = "40002410"
        #expect(throws: AudioEncodingError.self) { try FFmpegAudioEncoder(format: latm) }
        var main = AudioFormat(codec: .aac, payloadType: 96, clockRate: 16000)
        main.config = "0C08"  // object type 1 (AAC Main), 16 kHz, mono
        do {
            _ = try FFmpegAudioEncoder(format: main)
            Issue.record("made AAC Main")
        } catch {
            #expect(error.code == .invalidConfiguration && error.reason.contains("AAC-LC"), "\(error)")
        }
        var noConfig = AudioFormat(codec: .aac, payloadType: 96, clockRate: 16000)
        noConfig.config = nil
        #expect(throws: AudioEncodingError.self) { try FFmpegAudioEncoder(format: noConfig) }

        let encoder = try FFmpegAudioEncoder(format: AudioFormat(codec: .pcmu, payloadType: 0, clockRate: 8000))
        let short = PCMFrame(
            samples: .int16Interleaved([1, 2, 3]), sampleRate: 8000, channels: 2, sampleCount: 160, timestamp: 0,
            clockRate: 8000)
        #expect(throws: AudioEncodingError.self) { try encoder.encode(short) { _ in } }
        let planes = PCMFrame(
            samples: .floatPlanar([[0.5]]), sampleRate: 8000, channels: 1, sampleCount: 2, timestamp: 0, clockRate: 8000
        )
        #expect(throws: AudioEncodingError.self) { try encoder.encode(planes) { _ in } }
        let noChannels = PCMFrame(
            samples: .int16Interleaved([0]), sampleRate: 8000, channels: 0, sampleCount: 1, timestamp: 0,
            clockRate: 8000)
        #expect(throws: AudioEncodingError.self) { try encoder.encode(noChannels) { _ in } }
        try encoder.drain { _ in }
        let pcm = PCMFrame(
            samples: .int16Interleaved([0, 0]), sampleRate: 8000, channels: 1, sampleCount: 2, timestamp: 0,
            clockRate: 8000)
        #expect(throws: AudioEncodingError.self) { try encoder.encode(pcm) { _ in } }
    }

    /// Float planar stereo PCM (what the decoder gives) and a change of input rate midway: the output stays
    /// at the format's rate, every sample of the input accounted for.
    @Test func floatStereoAndARateChangeAreConverted() throws {
        let encoder = try FFmpegAudioEncoder(format: AudioFormat(codec: .pcmu, payloadType: 0, clockRate: 8000))
        var bytes = 0
        let stereo = PCMFrame(
            samples: .floatPlanar([[Float](repeating: 0.25, count: 1600), [Float](repeating: -0.25, count: 1600)]),
            sampleRate: 16000,
            channels: 2, sampleCount: 1600, timestamp: 0, clockRate: 16000)
        try encoder.encode(stereo) { bytes += $0.bytes.count }
        let mono = PCMFrame(
            samples: .int16Interleaved([Int16](repeating: 1000, count: 800)), sampleRate: 8000, channels: 1,
            sampleCount: 800,
            timestamp: 0, clockRate: 8000)
        try encoder.encode(mono) { bytes += $0.bytes.count }
        try encoder.drain { bytes += $0.bytes.count }
        // 100 ms at 16 kHz and 100 ms at 8 kHz: 1600 samples at 8 kHz (the resampler's flush at the change of
        // rate gives what the first 100 ms hold, not its filter's tail).
        #expect(bytes == 1600)
    }
}
