import Audio
import AudioDecoding
import FFmpegDecoding
import MediaPipeline
import PacketCapture
import RTP
import SDP
import VideoDecoding

/// What decoding an audio stream gave.
package struct AudioDecodeSummary: Sendable {
    /// Coded frames given to the decoder, and PCM frames it gave back.
    package var codedFrames = 0
    package var pcmFrames = 0
    package var samples = 0
    /// Samples of silence given where frames were lost (``AudioDecoding/PCMGapFiller``), and gaps left.
    package var silenceSamples = 0
    package var unfilledGaps = 0
    package var decodeErrors = 0
    /// The stream decoded, once a frame came.
    package var stream: StreamKey?
    package var inputFailure: (any Error)?
}

/// Decodes one audio stream (the first the filter admits) with FFmpeg to interleaved 16-bit PCM: what
/// `rtpdump decode --audio` writes to a WAV file and digests. Frames lost on the way are silence of their
/// duration (a frame of its own, before the next decoded one), so that the PCM keeps the stream's time.
package enum AudioFrameDecoding {
    /// - Throws: ``RTPDumpError`` when FFmpeg cannot open a decoder for the format; `emit`'s errors.
    package static func decode<Source: ReceivedItemSource>(
        _ source: inout Source, format: AudioFormat, filter: StreamFilter, followsFlows: Bool = false,
        emit: (PCMFrame) throws -> Void
    ) throws -> AudioDecodeSummary {
        var summary = AudioDecodeSummary()
        var decoder: FFmpegAudioDecoder?
        var failure: (any Error)?
        var gaps = PCMGapFiller()
        func hand(_ pcm: PCMFrame) {
            guard failure == nil else { return }
            if let silence = gaps.silence(before: pcm) {
                summary.silenceSamples += silence.sampleCount
                do { try emit(silence) } catch { failure = error }
            }
            summary.pcmFrames += 1
            summary.samples += pcm.sampleCount
            do { try emit(pcm) } catch { failure = error }
        }
        (summary.stream, summary.inputFailure) = try CaptureMediaStreams.firstAudioStream(
            of: &source, format: format, filter: filter, followsFlows: followsFlows
        ) { frame, configuration in
            if decoder == nil {
                // LATM's decoder takes the configuration that came in band.
                do {
                    decoder = try FFmpegAudioDecoder(
                        format: format, configuration: format.codec == .aacLATM ? configuration : nil)
                } catch {
                    throw RTPDumpError("\(error)")
                }
            }
            summary.codedFrames += 1
            try decoder?.decode(frame, emit: hand)
            if let failure { throw failure }
        }
        try decoder?.drain(emit: hand)
        if let failure { throw failure }
        summary.decodeErrors = decoder?.decodeErrors ?? 0
        summary.unfilledGaps = gaps.unfilledGaps
        return summary
    }

    /// The line `decode --audio --md5` prints for a PCM frame: `<index> <pts> <samples>x<channels> <md5>`, the
    /// time at the track's clock from the first timestamp (as the video's), the MD5 of its s16le samples.
    package static func md5Line(index: Int, _ pcm: PCMFrame) -> String {
        let pts = Int64(bitPattern: pcm.timestamp) - (1 << 32)
        var digest = MD5()
        digest.update(littleEndianBytes(pcm.int16Interleaved)[...])
        return "\(index) \(pts) \(pcm.sampleCount)x\(pcm.channels) \(digest.finalize())"
    }

    /// Samples as s16le bytes.
    package static func littleEndianBytes(_ samples: [Int16]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(samples.count * 2)
        for sample in samples {
            let value = UInt16(bitPattern: sample)
            bytes.append(UInt8(value & 0xFF))
            bytes.append(UInt8(value >> 8))
        }
        return bytes
    }
}
