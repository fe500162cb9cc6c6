import Audio
import H26x
import SDP

/// What a track's `stsd` says its samples are, and what its track header needs: the sample entry box
/// (ISO/IEC 14496-12 section 8.5.2, with 14496-15's `avcC` / `hvcC`, 14496-14's `esds`, the Opus in ISOBMFF
/// `dOps`), the handler, the timescale and, for video, the picture size.
struct SampleDescription: Equatable, Sendable {
    enum Media: Equatable, Sendable {
        case video(width: Int, height: Int)
        case audio(channels: Int, sampleRate: Int)
    }

    let media: Media
    /// Ticks per second of the track's times: its RTP clock rate.
    let timescale: Int
    /// The sample entry box, whole.
    let entry: [UInt8]

    var isVideo: Bool {
        if case .video = media { true } else { false }
    }

    /// What a track's format says before any unit: an audio track's description; nil for video (its first
    /// keyframe describes it).
    /// - Throws: ``MP4Error`` for a format MP4 does not carry, or an AAC configuration that does not read.
    static func before(_ format: MediaFormat) throws(MP4Error) -> SampleDescription? {
        switch format {
        case .video: return nil
        case .audio(let audio): return try .audio(audio)
        case .data: throw MP4Error(.unsupportedCodec, "\(format.encodingName) is not video or audio")
        }
    }

    /// An `avc1` or `hvc1` entry from the stream's parameter sets (the first SPS gives the size).
    static func h26x(_ sets: ParameterSets) throws(MP4Error) -> SampleDescription {
        let record: [UInt8]
        let sps: SequenceParameterSet
        do {
            record = try sets.decoderConfigurationRecord()
            guard let first = sets.sequenceParameterSet else {
                throw H26xError(.invalidParameterSet, "the stream has sent no SPS that reads")
            }
            sps = first
        } catch {
            throw MP4Error(.invalidConfiguration, "the \(sets.codec) track's parameter sets: \(error)")
        }
        var writer = BoxWriter()
        let isH264 = sets.codec == .h264
        visualEntry(isH264 ? "avc1" : "hvc1", width: sps.width, height: sps.height, into: &writer) { writer in
            writer.box(isH264 ? "avcC" : "hvcC") { $0.append(record) }
        }
        return SampleDescription(
            media: .video(width: sps.width, height: sps.height), timescale: 90_000, entry: writer.bytes)
    }

    /// A `jpeg` entry (QuickTime's Photo-JPEG, which FFmpeg and GStreamer read from MP4 as Motion JPEG) for
    /// pictures of `width` x `height`.
    static func jpeg(width: Int, height: Int) -> SampleDescription {
        var writer = BoxWriter()
        visualEntry("jpeg", width: width, height: height, into: &writer) { _ in }
        return SampleDescription(media: .video(width: width, height: height), timescale: 90_000, entry: writer.bytes)
    }

    /// The entry of an audio format: `mp4a` for AAC (its AudioSpecificConfig in an `esds`), `Opus` with a
    /// `dOps`, `ulaw` / `alaw` for G.711 and `twos` for L16 (QuickTime's, which FFmpeg and GStreamer read from MP4).
    static func audio(_ format: AudioFormat) throws(MP4Error) -> SampleDescription {
        var writer = BoxWriter()
        let channels = max(1, format.channels)
        switch format.codec {
        case .aac, .aacLATM:
            let config = try audioSpecificConfig(format)
            let rate = config.samplingRate
            audioEntry("mp4a", channels: config.channelConfiguration, sampleRate: rate, into: &writer) { writer in
                writer.fullBox("esds") { $0.esDescriptor(decoderSpecificInfo: config.bytes) }
            }
            return SampleDescription(
                media: .audio(channels: config.channelConfiguration, sampleRate: rate), timescale: format.clockRate,
                entry: writer.bytes)
        case .opus:
            audioEntry("Opus", channels: channels, sampleRate: 48_000, into: &writer) { writer in
                writer.box("dOps") { box in
                    box.u8(0)  // Version
                    box.u8(UInt8(min(channels, 2)))  // OutputChannelCount
                    box.u16(0)  // PreSkip: RTP does not say what the encoder primed
                    box.u32(48_000)  // InputSampleRate
                    box.u16(0)  // OutputGain
                    box.u8(0)  // ChannelMappingFamily: mono or stereo
                }
            }
            return SampleDescription(
                media: .audio(channels: min(channels, 2), sampleRate: 48_000), timescale: format.clockRate,
                entry: writer.bytes)
        case .pcmu, .pcma:
            audioEntry(
                format.codec == .pcmu ? "ulaw" : "alaw", channels: channels, sampleRate: format.clockRate, into: &writer
            ) { _ in }
            return SampleDescription(
                media: .audio(channels: channels, sampleRate: format.clockRate), timescale: format.clockRate,
                entry: writer.bytes)
        case .l16:  // big-endian 16-bit samples: QuickTime's `twos`
            audioEntry("twos", channels: channels, sampleRate: format.clockRate, into: &writer) { _ in }
            return SampleDescription(
                media: .audio(channels: channels, sampleRate: format.clockRate), timescale: format.clockRate,
                entry: writer.bytes)
        default:
            throw MP4Error(
                .unsupportedCodec,
                "\(format.encodingName) has no MP4 sample entry that players take: extract it on its own (rtpdump extract)"
            )
        }
    }

    private static func audioSpecificConfig(_ format: AudioFormat) throws(MP4Error) -> AudioSpecificConfig {
        do {
            return try AudioSpecificConfig(format: format)
        } catch {
            throw MP4Error(.invalidConfiguration, "the \(format.encodingName) track's configuration: \(error)")
        }
    }

    /// A VisualSampleEntry: its fixed fields, then the boxes `tail` writes.
    private static func visualEntry(
        _ type: StaticString, width: Int, height: Int, into writer: inout BoxWriter, _ tail: (inout BoxWriter) -> Void
    ) {
        writer.box(type) { entry in
            entry.zeros(6)
            entry.u16(1)  // data_reference_index
            entry.zeros(16)  // pre_defined, reserved, pre_defined[3]
            entry.u16(UInt16(clamping: width))
            entry.u16(UInt16(clamping: height))
            entry.u32(0x0048_0000)  // 72 dpi
            entry.u32(0x0048_0000)
            entry.u32(0)
            entry.u16(1)  // frame_count
            entry.zeros(32)  // compressorname
            entry.u16(0x0018)  // depth
            entry.u16(0xFFFF)  // pre_defined -1
            tail(&entry)
        }
    }

    /// An AudioSampleEntry (version 0): its fixed fields, then the boxes `tail` writes.
    private static func audioEntry(
        _ type: StaticString, channels: Int, sampleRate: Int, into writer: inout BoxWriter,
        _ tail: (inout BoxWriter) -> Void
    ) {
        writer.box(type) { entry in
            entry.zeros(6)
            entry.u16(1)  // data_reference_index
            entry.zeros(8)
            entry.u16(UInt16(clamping: channels))
            entry.u16(16)  // samplesize
            entry.zeros(4)  // pre_defined, reserved
            entry.u32(sampleRate <= 0xFFFF ? UInt32(sampleRate) << 16 : 0)
            tail(&entry)
        }
    }
}

extension BoxWriter {
    /// An ES_Descriptor (ISO/IEC 14496-1 section 7.2.6.5) for MPEG-4 audio: the AudioSpecificConfig as its
    /// DecoderSpecificInfo.
    mutating func esDescriptor(decoderSpecificInfo: [UInt8]) {
        let decoderSpecific = descriptor(tag: 5, decoderSpecificInfo)
        var decoderConfig: [UInt8] = [0x40, 0x15, 0, 0, 0]  // MPEG-4 audio, audio stream; bufferSizeDB 0
        decoderConfig += [0, 0, 0, 0, 0, 0, 0, 0]  // maxBitrate, avgBitrate: not known
        decoderConfig += decoderSpecific
        let es: [UInt8] = [0, 0, 0] + descriptor(tag: 4, decoderConfig) + descriptor(tag: 6, [2])  // ES_ID 0, flags 0; SL: MP4
        append(descriptor(tag: 3, es))
    }

    /// A descriptor: its tag, its size in the four-byte expandable form FFmpeg writes too, its body.
    private func descriptor(tag: UInt8, _ body: [UInt8]) -> [UInt8] {
        let size = body.count
        return [
            tag, 0x80 | UInt8(truncatingIfNeeded: size >> 21), 0x80 | UInt8(truncatingIfNeeded: size >> 14),
            0x80 | UInt8(truncatingIfNeeded: size >> 7), UInt8(truncatingIfNeeded: size) & 0x7F,
        ] + body
    }
}
