import Audio
import AudioDecoding
import CFFmpegLoader
import SDP

/// An ``AudioDecoding/AudioDecoder`` on libavcodec: G.711, L16, AAC (its AudioSpecificConfig as the
/// codec's extradata) and Opus, converted by libswresample (opened with the first audio decoder) to the
/// layout asked for, at the stream's own sampling rate and channels.
public final class FFmpegAudioDecoder: AudioDecoder {
    private let ff: cffmpeg_api
    private let audio: cffmpeg_audio_api
    private var context: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var resampler: OpaquePointer?
    /// The input format the resampler was made for (it is made again when the decoder's output changes).
    private var resamplerInput: (format: Int32, rate: Int32, channels: Int32)?
    private var input: [UInt8] = []
    public let format: AudioFormat
    public let layout: PCMFrame.Layout

    /// Frames libavcodec refused.
    public private(set) var decodeErrors = 0
    /// The last error libavcodec reported, in its words.
    public private(set) var lastError: String?
    public private(set) var framesDecoded = 0

    /// Opens a decoder for `format` (from the SDP) giving PCM in `layout`. `configuration` is the AAC
    /// stream's AudioSpecificConfig when the format's is not the one to use (LATM's in-band one).
    /// - Throws: ``AudioDecodingError`` when FFmpeg is missing, has no decoder for the codec, or the format
    ///   cannot be used.
    public init(
        format: AudioFormat, layout: PCMFrame.Layout = .int16Interleaved, configuration: AudioSpecificConfig? = nil
    )
        throws
    {
        self.format = format
        self.layout = layout
        switch FFmpegLibrary.audioFunctions() {
        case .success(let functions): (ff, self.audio) = functions
        case .failure(let missing): throw AudioDecodingError(.decoderUnavailable, missing.message)
        }
        // libavcodec takes the rate as a 32-bit int: the SDP's bound (RTPMap.clockRates) keeps it far inside.
        guard (1...8).contains(format.channels), RTPMap.clockRates.contains(format.clockRate) else {
            throw AudioDecodingError(
                .invalidConfiguration,
                "\(format.codec) with \(format.channels) channels at \(format.clockRate) Hz cannot be decoded (1 to 8"
                    + " channels, \(RTPMap.clockRates.lowerBound) to \(RTPMap.clockRates.upperBound) Hz)")
        }
        let id: AVCodecID =
            switch format.codec {
            case .pcmu: AV_CODEC_ID_PCM_MULAW
            case .pcma: AV_CODEC_ID_PCM_ALAW
            case .l16: AV_CODEC_ID_PCM_S16BE
            case .aac, .aacLATM: AV_CODEC_ID_AAC
            case .opus: AV_CODEC_ID_OPUS
            case .g722: AV_CODEC_ID_ADPCM_G722
            // libavcodec's "g726" reads AAL2's bit order, "g726le" RFC 3551's.
            case .g726: format.packing == .aal2 ? AV_CODEC_ID_ADPCM_G726 : AV_CODEC_ID_ADPCM_G726LE
            }
        guard let decoder = ff.avcodec_find_decoder(id) else {
            throw AudioDecodingError(.decoderUnavailable, "this libavcodec has no \(format.codec) decoder")
        }
        guard let context = ff.avcodec_alloc_context3(decoder), let frame = ff.av_frame_alloc(),
            let packet = ff.av_packet_alloc()
        else { throw AudioDecodingError(.decoderFailure, "libavcodec could not allocate a decoder") }
        self.context = context
        self.frame = frame
        self.packet = packet
        var channels = format.channels
        var rate = format.sampleRate
        if format.codec == .g726 {
            guard (2...5).contains(format.bitsPerSample) else {
                throw AudioDecodingError(
                    .invalidConfiguration, "G.726 needs 2 to 5 bits a sample, not \(format.bitsPerSample)")
            }
            context.pointee.bits_per_coded_sample = Int32(format.bitsPerSample)
        }
        if format.codec == .aac || format.codec == .aacLATM {
            let config = try configuration ?? Self.configuration(of: format)
            (rate, channels) = (config.samplingRate, max(1, config.channelConfiguration))
            setExtradata(config.bytes)
        }
        context.pointee.sample_rate = Int32(rate)
        self.audio.av_channel_layout_default(&context.pointee.ch_layout, Int32(channels))
        let status = ff.avcodec_open2(context, decoder, nil)
        guard status >= 0 else {
            throw AudioDecodingError(
                .decoderFailure, "libavcodec could not open the \(format.codec) decoder: \(ff.errorText(status))")
        }
    }

    /// The AudioSpecificConfig of an AAC format: its fmtp's `config` (for LATM, inside its StreamMuxConfig).
    static func configuration(of format: AudioFormat) throws -> AudioSpecificConfig {
        do {
            return try AudioSpecificConfig(format: format)
        } catch {
            throw AudioDecodingError(.invalidConfiguration, "\(format.codec): \(error)")
        }
    }

    private func setExtradata(_ bytes: [UInt8]) {
        guard let context, !bytes.isEmpty,
            let buffer = ff.av_mallocz(bytes.count + Int(AV_INPUT_BUFFER_PADDING_SIZE))?.assumingMemoryBound(
                to: UInt8.self)
        else { return }
        buffer.update(from: bytes, count: bytes.count)
        context.pointee.extradata = buffer
        context.pointee.extradata_size = Int32(bytes.count)
    }

    deinit {
        ff.avcodec_free_context(&context)
        ff.av_frame_free(&frame)
        ff.av_packet_free(&packet)
        if resampler != nil { audio.swr_free(&resampler) }
    }

    public func decode(_ coded: AudioFrame, emit: (PCMFrame) -> Void) throws {
        guard let context, let packet else { return }
        input.removeAll(keepingCapacity: true)
        input.append(contentsOf: coded.bytes)
        let size = input.count
        input.append(contentsOf: repeatElement(0, count: Int(AV_INPUT_BUFFER_PADDING_SIZE)))
        let status = input.withUnsafeMutableBufferPointer { buffer in
            packet.pointee.data = buffer.baseAddress
            packet.pointee.size = Int32(size)
            packet.pointee.pts = Int64(bitPattern: coded.timestamp)
            let status = ff.avcodec_send_packet(context, packet)
            packet.pointee.data = nil
            packet.pointee.size = 0
            return status
        }
        if status < 0 && status != cffmpeg_eagain() { return failed(status) }
        // The PCM says its track and, dated from the coded frame by its own timestamp (a decoder's delay
        // moves it), when it was captured.
        var first = true
        try receive(timestamp: coded.timestamp, followsLoss: coded.lostPacketsBefore > 0) { decoded in
            var pcm = decoded
            pcm.track = coded.track
            pcm.isDiscontinuity = coded.isDiscontinuity && first
            first = false
            pcm.captureTime = coded.captureTime?.adding(
                seconds: Double(Int64(bitPattern: pcm.timestamp &- coded.timestamp)) / Double(max(1, format.clockRate)))
            emit(pcm)
        }
    }

    public func drain(emit: (PCMFrame) -> Void) throws {
        guard let context else { return }
        _ = ff.avcodec_send_packet(context, nil)
        try receive(timestamp: nil, followsLoss: false, emit: emit)
        ff.avcodec_flush_buffers(context)
    }

    private func receive(timestamp: UInt64?, followsLoss: Bool, emit: (PCMFrame) -> Void) throws {
        guard let context, let frame else { return }
        try FFmpegLibrary.receiveFrames(ff, context: context, into: frame, failed: failed) {
            let pts = frame.pointee.pts != cffmpeg_nopts() ? UInt64(bitPattern: frame.pointee.pts) : (timestamp ?? 0)
            if let pcm = try convert(frame, timestamp: pts, followsLoss: followsLoss) {
                framesDecoded += 1
                emit(pcm)
            }
        }
    }

    /// The decoded frame in the layout asked for, through libswresample (made again when the decoder's
    /// output format changes: an AAC stream whose SBR doubles its rate once it is seen).
    private func convert(_ frame: UnsafeMutablePointer<AVFrame>, timestamp: UInt64, followsLoss: Bool) throws
        -> PCMFrame?
    {
        let count = Int(frame.pointee.nb_samples)
        let channels = Int(cffmpeg_frame_channels(frame))
        let rate = Int(frame.pointee.sample_rate)
        guard count > 0, channels > 0 else { return nil }
        let inputFormat = (frame.pointee.format, frame.pointee.sample_rate, Int32(channels))
        if resampler == nil || resamplerInput.map({ $0 != inputFormat }) ?? true {
            if resampler != nil { audio.swr_free(&resampler) }
            let output = layout == .int16Interleaved ? AV_SAMPLE_FMT_S16 : AV_SAMPLE_FMT_FLTP
            let made = withUnsafeMutablePointer(to: &frame.pointee.ch_layout) { layoutPointer in
                audio.swr_alloc_set_opts2(
                    &resampler, layoutPointer, output, Int32(rate), layoutPointer, AVSampleFormat(frame.pointee.format),
                    Int32(rate), 0, nil)
            }
            guard made >= 0, resampler != nil, audio.swr_init(resampler) >= 0 else {
                throw AudioDecodingError(.decoderFailure, "libswresample could not convert the decoded samples")
            }
            resamplerInput = inputFormat
        }
        guard let planesIn = frame.pointee.extended_data else { return nil }
        let source = UnsafeMutableRawPointer(planesIn).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        let samples: PCMFrame.Samples
        switch layout {
        case .int16Interleaved:
            var out = [Int16](repeating: 0, count: count * channels)
            let converted = out.withUnsafeMutableBytes { buffer -> Int32 in
                var planes: [UnsafeMutablePointer<UInt8>?] = [buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)]
                return planes.withUnsafeMutableBufferPointer { pointers in
                    audio.swr_convert(
                        resampler, pointers.baseAddress, Int32(count),
                        source,
                        Int32(count))
                }
            }
            guard converted >= 0 else { throw AudioDecodingError(.decoderFailure, "libswresample failed to convert") }
            samples = .int16Interleaved(Array(out.prefix(Int(converted) * channels)))
        case .floatPlanar:
            // One buffer, a plane after the other.
            var out = [Float](repeating: 0, count: count * channels)
            let converted = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
                var planes: [UnsafeMutablePointer<UInt8>?] = (0..<channels).map { channel in
                    buffer.baseAddress.map {
                        UnsafeMutableRawPointer($0 + channel * count).assumingMemoryBound(to: UInt8.self)
                    }
                }
                return planes.withUnsafeMutableBufferPointer { pointers in
                    audio.swr_convert(resampler, pointers.baseAddress, Int32(count), source, Int32(count))
                }
            }
            guard converted >= 0 else { throw AudioDecodingError(.decoderFailure, "libswresample failed to convert") }
            samples = .floatPlanar((0..<channels).map { Array(out[($0 * count)..<($0 * count + Int(converted))]) })
        }
        let produced: Int
        switch samples {
        case .int16Interleaved(let values): produced = values.count / channels
        case .floatPlanar(let planes): produced = planes.first?.count ?? 0
        }
        return PCMFrame(
            samples: samples, sampleRate: rate, channels: channels, sampleCount: produced, timestamp: timestamp,
            clockRate: format.clockRate, followsLoss: followsLoss)
    }

    /// A status libavcodec refused a frame with: counted, and its words kept.
    private func failed(_ status: Int32) {
        decodeErrors += 1
        lastError = ff.errorText(status)
    }
}
