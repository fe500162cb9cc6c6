import Audio
import AudioDecoding
import FFmpegDecoding
import MediaPipeline
import PacketCapture
import RTP
import SDP
import VideoDecoding

/// What decoding an audio stream gave.
public struct AudioDecodeSummary: Sendable {
    /// Coded frames given to the decoder, and PCM frames it gave back.
    public var codedFrames = 0
    public var pcmFrames = 0
    public var samples = 0
    public var decodeErrors = 0
    /// The stream decoded, once a frame came.
    public var stream: StreamKey?
    public var inputFailure: (any Error)?
}

/// Decodes one audio stream (the first the filter admits) with FFmpeg to interleaved 16-bit PCM: what
/// `rtpdump decode --audio` writes to a WAV file and digests.
public enum AudioFrameDecoding {
    /// - Throws: ``RTPDumpError`` when FFmpeg cannot open a decoder for the format; `emit`'s errors.
    public static func decode<Source: DatagramSource>(
        _ source: inout Source, format: AudioFormat, filter: StreamFilter, followsFlows: Bool = false,
        emit: (PCMFrame) throws -> Void
    ) throws -> AudioDecodeSummary {
        var streams: AudioFrameStreams
        do {
            streams = try AudioFrameStreams(
                format: format, filter: filter, senderClocks: source.senderClocks, followsFlows: followsFlows)
        } catch {
            throw RTPDumpError("\(error)")
        }
        var summary = AudioDecodeSummary()
        var decoder: FFmpegAudioDecoder?
        var failure: (any Error)?
        // Decoded once `add` returns: LATM's decoder is opened with the configuration that came in band,
        // which the depacketizer holds.
        var batch: [(StreamKey, AudioFrame)] = []
        func decodeBatch() {
            defer { batch.removeAll(keepingCapacity: true) }
            for (key, frame) in batch where failure == nil {
                if summary.stream == nil { summary.stream = key }
                guard key == summary.stream else { continue }
                do {
                    if decoder == nil {
                        let inBand = streams.depacketizers.first { $0.0 == key }?.1.audioSpecificConfig
                        do {
                            decoder = try FFmpegAudioDecoder(
                                format: format, configuration: format.codec == .aacLATM ? inBand : nil)
                        } catch {
                            throw RTPDumpError("\(error)")
                        }
                    }
                    summary.codedFrames += 1
                    try decoder?.decode(frame) { pcm in
                        guard failure == nil else { return }
                        do { try hand(pcm) } catch { failure = error }
                    }
                } catch { failure = error }
            }
        }
        func hand(_ pcm: PCMFrame) throws {
            summary.pcmFrames += 1
            summary.samples += pcm.sampleCount
            try emit(pcm)
        }
        summary.inputFailure = RTPDumpCore.failure {
            try source.forEachDatagram { datagram in
                streams.add(datagram) { key, frame in batch.append((key, frame)) }
                if !batch.isEmpty { decodeBatch() }
            }
        }
        streams.finish { key, frame in batch.append((key, frame)) }
        decodeBatch()
        if failure == nil {
            do {
                try decoder?.drain { pcm in
                    guard failure == nil else { return }
                    do { try hand(pcm) } catch { failure = error }
                }
            } catch { failure = error }
        }
        if let failure { throw failure }
        summary.decodeErrors = decoder?.decodeErrors ?? 0
        return summary
    }

    /// The line `decode --audio --md5` prints for a PCM frame: `<index> <pts> <samples>x<channels> <md5>`, the
    /// time at the track's clock from the first timestamp (as the video's), the MD5 of its s16le samples.
    public static func md5Line(index: Int, _ pcm: PCMFrame) -> String {
        let pts = Int64(bitPattern: pcm.timestamp) - (1 << 32)
        var digest = MD5()
        digest.update(littleEndianBytes(pcm.int16Interleaved)[...])
        return "\(index) \(pts) \(pcm.sampleCount)x\(pcm.channels) \(digest.finalize())"
    }

    /// Samples as s16le bytes.
    public static func littleEndianBytes(_ samples: [Int16]) -> [UInt8] {
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
