import Audio
import AudioDecoding
import FFmpegDecoding
import Foundation
import SDP
import Testing
import VideoDecoding

/// G.722 and G.726 captures of real senders (GStreamer's avenc_g722 ! rtpg722pay and avenc_g726 ! rtpg726pay;
/// FFmpeg's g726le encoder and RTP muxer; Fixtures/scripts/make-g72x-fixtures.sh) through the pipeline and
/// libavcodec, against libavcodec's decoding of the code words each sender wrote as it sent them
/// (expected/<capture>.sent-pcm.txt): PCM sample for sample.
@Suite struct G72xFixtureTests {
    static let ffmpeg = [16, 24, 32, 40].map { "audio-g726-\($0)-ffmpeg" }
    static let gstreamer = [16, 24, 32, 40].map { "audio-g726-\($0)-gst" }

    static func sent(_ capture: String, _ reference: String = "sent") throws -> String {
        try String(
            contentsOf: AudioFixtureTests.root.appendingPathComponent(
                "Fixtures/expected/\(capture).pcap.\(reference)-pcm.txt"),
            encoding: .utf8
        ).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// "<samples> <channels> <md5 of the s16le PCM>" of the capture decoded through the library.
    static func decoded(_ capture: String, format: AudioFormat) throws -> (
        line: String, frames: [AudioFrame], pcm: [PCMFrame]
    ) {
        let (frames, statistics) = try AudioFixtureTests.frames(capture, format: format)
        #expect(statistics == AudioDepacketizerStatistics())
        let decoder = try FFmpegAudioDecoder(format: format, layout: .int16Interleaved)
        var pcm: [PCMFrame] = []
        for frame in frames { try decoder.decode(frame) { pcm.append($0) } }
        try decoder.drain { pcm.append($0) }
        #expect(decoder.decodeErrors == 0, "\(decoder.lastError ?? "")")
        var digest = MD5()
        for frame in pcm { frame.int16Interleaved.withUnsafeBytes { digest.update($0) } }
        return ("\(pcm.reduce(0) { $0 + $1.sampleCount }) 1 \(digest.finalize())", frames, pcm)
    }

    /// G.722: 16 kHz samples on the 8000 Hz RTP clock of RFC 3551: 20 ms packets step the timestamp by 160
    /// and hold 320 samples; the decoder gives 16 kHz PCM.
    @Test func g722DecodesToTheSendersPCMAt16kHzOnAn8kHzClock() throws {
        let format = try AudioFixtureTests.format("audio-g722-gst")
        #expect(
            format.codec == .g722 && format.payloadType == 9 && format.clockRate == 8000 && format.sampleRate == 16000)
        let (line, frames, pcm) = try Self.decoded("audio-g722-gst", format: format)
        #expect(line == (try Self.sent("audio-g722-gst")))
        #expect(frames.allSatisfy { $0.sampleCount == 320 })
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $1.timestamp - $0.timestamp == 160 })
        #expect(pcm.allSatisfy { $0.sampleRate == 16000 })
        // GStreamer's depayloader and decoder agree.
        #expect(try Self.sent("audio-g722-gst", "gst-depay") == (try Self.sent("audio-g722-gst")))
    }

    /// FFmpeg sends RFC 3551's bit order under RFC 3551's names: played as named, at every rate.
    @Test(arguments: ffmpeg)
    func g726OfFFmpegDecodesAsNamed(capture: String) throws {
        let format = try AudioFixtureTests.format(capture)
        #expect(
            format.codec == .g726 && format.packing == .rfc3551
                && format.encodingName == "G726-\(format.bitsPerSample * 8)")
        let (line, frames, _) = try Self.decoded(capture, format: format)
        #expect(line == (try Self.sent(capture)))
        // Samples per frame from the code word size: 8 per byte-group of bitsPerSample bytes.
        #expect(frames.allSatisfy { $0.sampleCount == $0.bytes.count * 8 / format.bitsPerSample })
        // GStreamer's depayloader takes these names for AAL2's order: its PCM is not the sender's.
        #expect(try Self.sent(capture, "gst-depay") != (try Self.sent(capture)))
    }

    /// GStreamer's rtpg726pay (force-aal2=true, its default) sends AAL2's order named G726-*: as named it decodes
    /// to other samples; with the packing set to AAL2 (`--g726-packing aal2`) to the sender's.
    @Test(arguments: gstreamer)
    func g726OfGStreamerNeedsTheAAL2Packing(capture: String) throws {
        var format = try AudioFixtureTests.format(capture)
        #expect(format.codec == .g726 && format.packing == .rfc3551)
        let sent = try Self.sent(capture)
        #expect(try Self.decoded(capture, format: format).line != sent)
        format.packing = .aal2
        #expect(try Self.decoded(capture, format: format).line == sent)
        #expect(format.encodingName == "AAL2-G726-\(format.bitsPerSample * 8)")
        #expect(try Self.sent(capture, "gst-depay") == sent)
    }
}
