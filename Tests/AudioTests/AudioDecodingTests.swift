import MediaDecoding
import Audio
import AudioDecoding
import FFmpegDecoding
import Foundation
import SDP
import Testing
import VideoDecoding

/// The FFmpeg audio decoder on the frames of real senders' captures, against FFmpeg's own decoding of
/// GStreamer's depayloaded stream (expected/<capture>.ffmpeg-pcm.txt: samples per channel, channels, MD5 of
/// the s16le bytes; gst_audio_references.sh): sample for sample.
@Suite struct AudioDecodingTests {
    static func expected(_ capture: String) throws -> (samples: Int, channels: Int, md5: String) {
        let fields = try String(
            contentsOf: AudioFixtureTests.root.appendingPathComponent(
                "Fixtures/expected/\(capture).pcap.ffmpeg-pcm.txt"),
            encoding: .utf8
        ).split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        return (Int(fields[0]) ?? -1, Int(fields[1]) ?? -1, fields[2])
    }

    /// A clock rate of 2^31 Hz or more (from `--sdp`, or a format made by hand) once trapped converting it
    /// for libavcodec: refused with the range, as are nonsense channel counts.
    @Test(arguments: [(AudioCodec.pcmu, 2_147_483_648, 1), (.l16, 4_294_967_295, 2), (.pcma, 8000, 0), (.pcma, 0, 1)])
    func ratesAndChannelsOutOfRangeAreRefused(codec: AudioCodec, rate: Int, channels: Int) {
        let error = #expect(throws: AudioDecodingError.self) {
            try FFmpegAudioDecoder(
                format: AudioFormat(codec: codec, payloadType: 96, clockRate: rate, channels: channels))
        }
        #expect(error?.code == .invalidConfiguration)
    }

    static func decode(_ capture: String, layout: PCMFrame.Layout) throws -> [PCMFrame] {
        let format = try AudioFixtureTests.format(capture)
        let (frames, _) = try AudioFixtureTests.frames(capture, format: format)
        let decoder = try FFmpegAudioDecoder(format: format, layout: layout)
        var pcm: [PCMFrame] = []
        for frame in frames { try decoder.decode(frame) { pcm.append($0) } }
        try decoder.drain { pcm.append($0) }
        #expect(decoder.decodeErrors == 0, "\(decoder.lastError ?? "")")
        return pcm
    }

    @Test(arguments: AudioFixtureTests.captures)
    func decodedSamplesEqualFFmpegsDecodingOfGStreamersStream(capture: String) throws {
        let (samples, channels, md5) = try Self.expected(capture)
        let pcm = try Self.decode(capture, layout: .int16Interleaved)
        #expect(pcm.allSatisfy { $0.channels == channels })
        #expect(pcm.reduce(0) { $0 + $1.sampleCount } == samples)
        var digest = MD5()
        for frame in pcm {
            frame.int16Interleaved.withUnsafeBytes { digest.update($0) }  // little-endian, as s16le
        }
        #expect(digest.finalize() == md5)
        // Each frame keeps its coded frame's timestamp.
        #expect(zip(pcm, pcm.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
    }

    /// Planar float gives the same samples (to within the rounding to 16 bits).
    @Test(arguments: ["audio-aac-gst", "audio-opus-gst", "audio-pcmu-gst"])
    func floatPlanarIsTheSameSignal(capture: String) throws {
        let ints = try Self.decode(capture, layout: .int16Interleaved)
        let floats = try Self.decode(capture, layout: .floatPlanar)
        #expect(ints.map(\.sampleCount) == floats.map(\.sampleCount))
        for (a, b) in zip(ints, floats) {
            guard case .floatPlanar(let planes) = b.samples else {
                Issue.record("not planar")
                return
            }
            #expect(planes.count == b.channels)
            #expect(zip(a.int16Interleaved, b.int16Interleaved).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
        }
    }
}
