import Audio
import MediaPipeline
import PacketCapture
import RTP
import SDP

/// The file `rtpdump extract` writes an audio stream to, by its name's extension.
package enum AudioContainer: String, Sendable, CaseIterable {
    /// AAC frames with ADTS headers (`.aac`).
    case adts
    /// Ogg Opus (`.opus`, `.ogg`).
    case oggOpus
    /// RIFF/WAVE of G.711 or 16-bit PCM (`.wav`).
    case wav
    /// G.722 or G.726 code words as they came (`.g722`, `.g726`): what FFmpeg's raw demuxers read (`-f g722`;
    /// `-f g726le`, or `g726` for AAL2's bit order, with `-code_size`). Lost frames are not filled.
    case raw

    /// The container a path's extension names; nil for another.
    package init?(path: String) {
        switch path.split(separator: ".").last?.lowercased() {
        case "aac", "adts": self = .adts
        case "opus", "ogg": self = .oggOpus
        case "wav": self = .wav
        case "g722", "g726": self = .raw
        default: return nil
        }
    }

    /// The container a codec is written in, and its usual extension.
    package static func `for`(_ codec: AudioCodec) -> (container: AudioContainer, fileExtension: String) {
        switch codec {
        case .aac, .aacLATM: (.adts, ".aac")
        case .opus: (.oggOpus, ".opus")
        case .pcmu, .pcma, .l16: (.wav, ".wav")
        case .g722: (.raw, ".g722")
        case .g726: (.raw, ".g726")
        }
    }
}

/// What an audio extraction wrote.
package struct AudioExtractSummary: Sendable {
    package var frames = 0
    package var bytes = 0
    /// Samples of silence written where frames were missing (WAV only: its samples have no timestamps).
    package var silenceSamples = 0
    /// Gaps too long to fill (over ``AudioExtraction/maxFilledGap`` or ``AudioExtraction/maxSilenceBytes``,
    /// or past the silence the audio received allows), or a timestamp that went back.
    package var unfilledGaps = 0
    /// Frames too large for their container (an AAC frame of 8 KiB or more, an Opus packet of 64 KiB).
    package var skippedFrames = 0
    /// The stream written, once a frame came.
    package var stream: StreamKey?
    package var inputFailure: (any Error)?
}

/// Writes the audio frames of one stream (the first the filter admits) in a file players open: ADTS for AAC
/// (in band or `mpeg4-generic`), Ogg Opus, WAV for G.711 and L16.
package enum AudioExtraction {
    /// The longest gap WAV fills with silence: past it the audio goes on without, and the gap is counted.
    package static let maxFilledGap = 10.0
    /// The most silence written for one gap, whatever clock rate and channels the SDP claims; and beyond the
    /// audio received, the most written in all.
    package static let maxSilenceBytes = 16 << 20

    /// - Parameters:
    ///   - write: appends bytes to the file.
    ///   - rewriteStart: writes bytes again at the file's start (the WAV header, once the sizes are known).
    /// - Throws: ``RTPDumpError`` when the container does not take the codec or the AAC configuration cannot
    ///   be written as ADTS; the write closures' errors.
    package static func extract<Source: ReceivedItemSource>(
        _ source: inout Source, format: AudioFormat, container: AudioContainer, filter: StreamFilter,
        followsFlows: Bool = false, write: (ArraySlice<UInt8>) throws -> Void,
        rewriteStart: ([UInt8]) throws -> Void
    ) throws -> AudioExtractSummary {
        let expected = AudioContainer.for(format.codec)
        guard expected.container == container else {
            throw RTPDumpError(
                "the stream is \(format.codec.encodingName), which is written as \(expected.fileExtension); "
                    + "name the output file so")
        }
        var writer = try FileWriter(format: format, container: container)
        var summary = AudioExtractSummary()
        (summary.stream, summary.inputFailure) = try CaptureMediaStreams.firstAudioStream(
            of: &source, format: format, filter: filter, followsFlows: followsFlows
        ) { frame, configuration in
            var out: [UInt8] = []
            if writer.needsConfiguration { writer.configure(configuration) }
            try writer.append(frame, into: &out, summary: &summary)
            try write(out[...])
            summary.bytes += out.count
        }
        var tail: [UInt8] = []
        writer.finish(into: &tail)
        try write(tail[...])
        summary.bytes += tail.count
        if let header = writer.finalHeader(totalBytes: summary.bytes) { try rewriteStart(header) }
        return summary
    }

    /// One container's writing: its header, each frame, its end.
    struct FileWriter {
        let format: AudioFormat
        let container: AudioContainer
        var started = false
        var config: AudioSpecificConfig?
        var ogg: OggOpusWriter
        var firstTimestamp: UInt64?
        var nextTimestamp: UInt64?
        let wav: WAVHeader.Encoding?
        /// WAV: bytes of received samples and of silence written, which bound the silence.
        var audioBytes = 0
        var silenceBytes = 0

        init(format: AudioFormat, container: AudioContainer) throws {
            self.format = format
            self.container = container
            ogg = OggOpusWriter(channels: format.channels)
            wav = WAVHeader.encoding(for: format.codec)
            if format.codec == .aac, let hex = format.config {
                do { config = try AudioSpecificConfig(hex: hex) } catch { throw RTPDumpError("\(error)") }
            }
        }

        /// LATM's configuration comes in band: asked of the depacketizer when the first frame is written.
        var needsConfiguration: Bool { container == .adts && config == nil }

        mutating func configure(_ config: AudioSpecificConfig?) { self.config = config }

        mutating func append(_ frame: AudioFrame, into out: inout [UInt8], summary: inout AudioExtractSummary) throws {
            switch container {
            case .adts:
                guard let config else {
                    throw RTPDumpError("the AAC stream's configuration is unknown: give its SDP with --sdp")
                }
                guard ADTS.canWrite(config) else {
                    throw RTPDumpError(
                        "AAC object type \(config.objectType) at sampling index \(config.samplingFrequencyIndex) "
                            + "cannot be written as ADTS")
                }
                guard let header = ADTS.header(for: config, frameSize: frame.bytes.count) else {
                    summary.skippedFrames += 1
                    return
                }
                out += header
                out += frame.bytes
            case .raw:
                out += frame.bytes
            case .oggOpus:
                if !started { out += ogg.headers() }
                guard frame.bytes.count <= OggOpusWriter.maxPacketSize else {
                    summary.skippedFrames += 1
                    return
                }
                let first = firstTimestamp ?? frame.timestamp
                firstTimestamp = first
                // Opus runs a 48 kHz RTP clock: the granule is the sample where the packet ends.
                ogg.write(frame.bytes, endingAt: frame.timestamp &- first &+ UInt64(frame.sampleCount), into: &out)
            case .wav:
                if !started { out += header(dataBytes: 0) }
                fillGap(before: frame, into: &out, summary: &summary)
                if format.codec == .l16 {
                    // L16 is big-endian on the wire, WAV little-endian.
                    var index = frame.bytes.startIndex
                    while index + 1 < frame.bytes.endIndex {
                        out += [frame.bytes[index + 1], frame.bytes[index]]
                        index += 2
                    }
                } else {
                    out += frame.bytes
                }
                let width = (format.codec == .l16 ? 2 : 1) * max(1, format.channels)
                nextTimestamp = frame.timestamp &+ UInt64(frame.bytes.count / width)
                audioBytes += frame.bytes.count
            }
            started = true
            summary.frames += 1
        }

        /// Silence for the samples between the last frame and this one, up to ``AudioExtraction/maxFilledGap``.
        mutating func fillGap(before frame: AudioFrame, into out: inout [UInt8], summary: inout AudioExtractSummary) {
            // After a break (a new source, a reconnect) the timestamps start anew: there is no gap to measure.
            guard let next = nextTimestamp, frame.timestamp != next, !frame.isDiscontinuity else { return }
            let gap = frame.timestamp &- next
            let silence: [UInt8] =
                switch wav {
                case .muLaw: [0xFF]
                case .aLaw: [0xD5]
                default: [0, 0]
                }
            let channels = max(1, format.channels)
            guard frame.timestamp > next, Double(gap) <= AudioExtraction.maxFilledGap * Double(format.clockRate),
                gap <= UInt64(AudioExtraction.maxSilenceBytes / (channels * silence.count))
            else {
                summary.unfilledGaps += 1
                return
            }
            // And in all: never more silence than the audio received plus one gap's worth, so that a few
            // packets whose timestamps leap cannot make a file of gigabytes.
            let bytes = Int(gap) * channels * silence.count
            guard silenceBytes + bytes <= audioBytes + AudioExtraction.maxSilenceBytes else {
                summary.unfilledGaps += 1
                return
            }
            silenceBytes += bytes
            out.reserveCapacity(out.count + bytes)
            for _ in 0..<(Int(gap) * channels) { out += silence }
            summary.silenceSamples += Int(gap)
        }

        mutating func finish(into out: inout [UInt8]) {
            if container == .oggOpus { ogg.finish(into: &out) }
            if container == .wav, !started { out += header(dataBytes: 0) }
        }

        /// The WAV header with the sizes, once every sample is written.
        func finalHeader(totalBytes: Int) -> [UInt8]? {
            guard container == .wav else { return nil }
            let headerSize = header(dataBytes: 0).count
            return header(dataBytes: totalBytes - headerSize)
        }

        func header(dataBytes: Int) -> [UInt8] {
            WAVHeader.bytes(
                encoding: wav ?? .pcm16, sampleRate: format.clockRate, channels: max(1, format.channels),
                dataBytes: dataBytes)
        }
    }
}
