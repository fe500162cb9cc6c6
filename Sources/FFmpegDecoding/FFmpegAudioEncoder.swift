import Audio
import AudioDecoding
import CFFmpegLoader
import SDP

/// Encodes PCM to an audio track's format with libavcodec: AAC-LC (FFmpeg's `aac`), Opus (`libopus`), and
/// G.711, L16, G.722 and G.726 (FFmpeg's own). It is what a camera's backchannel that takes AAC or Opus
/// needs (RTSPClient's `RTSPBackchannel.send(_:)` sends its frames), or a server's track made from PCM.
///
/// ```swift
/// let encoder = try FFmpegAudioEncoder(format: backchannel.format)
/// try encoder.encode(pcm) { backchannel.send($0) }   // PCM at any rate and channel count
/// try encoder.drain { backchannel.send($0) }         // at the end: what the codec still holds
/// ```
///
/// PCM of any sampling rate and channel count is converted by libswresample to the format's and cut into
/// the codec's frames (1024 samples of AAC, 20 ms of the others; G.726's, which libavcodec makes longer, are
/// cut into 20 ms). Each coded frame is dated by its first sample at the format's clock, the first at 0; an
/// AAC encoder's priming frame is the first. An encoder holds codec state: use it from one task at a time.
public final class FFmpegAudioEncoder {
    /// The format it encodes to.
    public let format: AudioFormat
    /// Samples per channel in each frame it gives the codec, at the format's sampling rate (the last may be
    /// shorter). The frames it emits hold as many, but for G.726's, cut into 20 ms.
    public let frameSamples: Int
    /// Coded frames emitted so far.
    public private(set) var framesEncoded = 0

    private let ff: cffmpeg_api
    private let audio: cffmpeg_audio_api
    private let takesShortLastFrame: Bool
    /// The codec's sampling rate: the format's, or its AAC configuration's.
    private let codecRate: Int
    private let sampleFormat: AVSampleFormat
    /// Bytes a sample takes in one plane of the codec's sample format: a channel's when planar, every
    /// channel's when interleaved.
    private let planeBytesPerSample: Int
    private var context: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var resampler: OpaquePointer?
    /// The PCM the resampler was made for (it is made again when the input's changes).
    private var resamplerInput: (rate: Int, channels: Int, float: Bool)?
    /// Samples given to the resampler since it was made, and samples it gave: its flush gives only what
    /// the input's duration holds at the output's rate (the rest is its filter's tail).
    private var resamplerCounts = (input: 0, output: 0)
    /// Converted samples not yet encoded: one byte array per plane of the codec's sample format.
    private var pending: [[UInt8]]
    /// libswresample's output, before it joins `pending`.
    private var conversion: [UInt8] = []
    private var samplesIn: Int64 = 0
    private var firstTimestamp: Int64?
    private var drained = false
    /// G.726 code words short of a 20 ms frame, and their first sample's position.
    private var g726Held: (bytes: [UInt8], position: Int64) = ([], 0)

    /// Opens an encoder for `format` (a track's, from its SDP). `bitRate` in bits a second is the codec's
    /// choice when nil (it does not apply to G.711, L16, G.722 and G.726, whose rate is their format's).
    /// - Throws: ``AudioEncodingError`` when FFmpeg or its encoder is missing, or the format is one it cannot
    ///   make (LATM AAC, an AAC object type other than LC).
    public init(format: AudioFormat, bitRate: Int? = nil) throws(AudioEncodingError) {
        self.format = format
        switch FFmpegLibrary.audioFunctions() {
        case .success(let functions): (ff, audio) = functions
        case .failure(let missing): throw AudioEncodingError(.encoderUnavailable, missing.message)
        }
        guard (1...8).contains(format.channels), RTPMap.clockRates.contains(format.clockRate) else {
            throw AudioEncodingError(
                .invalidConfiguration,
                "\(format.codec) with \(format.channels) channels at \(format.clockRate) Hz cannot be encoded")
        }
        // An AAC format's configuration, read once: the object type it must be, its rate and channels.
        let aacConfiguration = format.codec == .aac ? try Self.configuration(of: format) : nil
        let choice = try Self.encoder(for: format, aacConfiguration: aacConfiguration, audio: audio)
        sampleFormat = choice.sampleFormat
        takesShortLastFrame = cffmpeg_takes_small_last_frame(choice.codec) != 0
        guard let context = ff.avcodec_alloc_context3(choice.codec), let frame = ff.av_frame_alloc(),
            let packet = ff.av_packet_alloc()
        else { throw AudioEncodingError(.encoderFailure, "libavcodec could not allocate an encoder") }
        self.context = context
        self.frame = frame
        self.packet = packet
        var (rate, channels) = (format.sampleRate, format.channels)
        if let aacConfiguration {
            (rate, channels) = (aacConfiguration.samplingRate, max(1, aacConfiguration.channelConfiguration))
        }
        context.pointee.sample_fmt = choice.sampleFormat
        context.pointee.sample_rate = Int32(rate)
        context.pointee.time_base = AVRational(num: 1, den: Int32(rate))
        audio.av_channel_layout_default(&context.pointee.ch_layout, Int32(channels))
        if format.codec == .g726 {
            // libavcodec's G.726 takes its code size from the bit rate: bits a sample at 8 kHz.
            context.pointee.bit_rate = Int64(format.bitsPerSample * 8000)
            context.pointee.bits_per_coded_sample = Int32(format.bitsPerSample)
        } else if let bitRate {
            context.pointee.bit_rate = Int64(bitRate)
        }
        let status = ff.avcodec_open2(context, choice.codec, nil)
        guard status >= 0 else {
            throw AudioEncodingError(
                .encoderFailure, "libavcodec could not open the \(format.codec) encoder: \(ff.errorText(status))")
        }
        codecRate = rate
        frameSamples = context.pointee.frame_size > 0 ? Int(context.pointee.frame_size) : rate / 50
        let isPlanar = choice.sampleFormat == AV_SAMPLE_FMT_FLTP
        let bytesPerSample = Int(audio.av_get_bytes_per_sample(choice.sampleFormat))
        planeBytesPerSample = isPlanar ? bytesPerSample : bytesPerSample * channels
        pending = Array(repeating: [], count: isPlanar ? channels : 1)
        frame.pointee.format = choice.sampleFormat.rawValue
        frame.pointee.sample_rate = Int32(rate)
        frame.pointee.nb_samples = Int32(frameSamples)
        audio.av_channel_layout_default(&frame.pointee.ch_layout, Int32(channels))
        guard audio.av_frame_get_buffer(frame, 0) >= 0 else {
            throw AudioEncodingError(.encoderFailure, "libavutil could not allocate a frame of \(frameSamples) samples")
        }
    }

    deinit {
        ff.avcodec_free_context(&context)
        ff.av_frame_free(&frame)
        ff.av_packet_free(&packet)
        if resampler != nil { audio.swr_free(&resampler) }
    }

    /// Encodes `pcm`; `emit` receives each coded frame it completes (none until a frame's worth is there, and
    /// an encoder's lookahead holds the latest back until ``drain(emit:)``).
    /// - Throws: ``AudioEncodingError`` when libavcodec or libswresample fail, or after ``drain(emit:)``.
    public func encode(_ pcm: PCMFrame, emit: (AudioFrame) throws -> Void) throws {
        guard !drained else { throw AudioEncodingError(.encoderFailure, "the encoder was drained: make another") }
        guard pcm.sampleCount > 0 else { return }
        guard (1...64).contains(pcm.channels), (1...768_000).contains(pcm.sampleRate) else {
            throw AudioEncodingError(
                .invalidConfiguration,
                "PCM of \(pcm.channels) channels at \(pcm.sampleRate) Hz cannot be converted (1 to 64, up to 768 kHz)")
        }
        try convert(pcm)
        while pending[0].count >= frameSamples * planeBytesPerSample {
            try encodeFrame(samples: frameSamples, emit: emit)
        }
    }

    /// Encodes what is still held: the samples short of a frame and the codec's lookahead. The encoder
    /// takes nothing after it.
    public func drain(emit: (AudioFrame) throws -> Void) throws {
        guard !drained, let context, let packet else { return }
        drained = true
        if resampler != nil {
            try convert(nil)
        }
        while !pending[0].isEmpty {
            try encodeFrame(samples: min(frameSamples, pending[0].count / planeBytesPerSample), emit: emit)
        }
        _ = audio.avcodec_send_frame(context, nil)
        try receivePackets(context: context, packet: packet, emit: emit)
        if format.codec == .g726 { try cutG726([], at: 0, emit: emit) }
    }

    // MARK: - Conversion

    /// `pcm` converted to the codec's sample format, rate and channels, appended to `pending`; nil flushes
    /// the resampler.
    private func convert(_ pcm: PCMFrame?) throws {
        if let pcm {
            let input = (
                rate: pcm.sampleRate, channels: pcm.channels,
                float: { if case .floatPlanar = pcm.samples { true } else { false } }()
            )
            if resamplerInput.map({ $0 != input }) ?? true {
                if resampler != nil { try convert(nil) }
                try makeResampler(for: input)
            }
        }
        let inputCount = Int32(pcm?.sampleCount ?? 0)
        var capacity = Int(audio.swr_get_out_samples(resampler, inputCount))
        if pcm == nil, let input = resamplerInput, let context {
            let owed =
                (resamplerCounts.input * Int(context.pointee.sample_rate) + input.rate / 2) / input.rate
                - resamplerCounts.output
            capacity = min(capacity, max(0, owed))
        }
        guard capacity > 0 else { return }
        // One buffer for the output, its planes one after the other (kept from call to call).
        let planeBytes = capacity * planeBytesPerSample
        if conversion.count < planeBytes * pending.count {
            conversion = [UInt8](repeating: 0, count: planeBytes * pending.count)
        }
        let converted = try withInputPlanes(of: pcm) { source in
            conversion.withUnsafeMutableBufferPointer { buffer in
                // The plane pointers on the stack: no allocation per call.
                withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<UInt8>?.self, capacity: pending.count) {
                    planes in
                    for plane in pending.indices { planes[plane] = buffer.baseAddress.map { $0 + plane * planeBytes } }
                    return audio.swr_convert(resampler, planes.baseAddress, Int32(capacity), source, inputCount)
                }
            }
        }
        guard converted >= 0 else {
            throw AudioEncodingError(.encoderFailure, "libswresample failed to convert the PCM")
        }
        resamplerCounts.input += Int(inputCount)
        resamplerCounts.output += Int(converted)
        for plane in pending.indices {
            let start = plane * planeBytes
            pending[plane].append(contentsOf: conversion[start..<start + Int(converted) * planeBytesPerSample])
        }
    }

    private func makeResampler(for input: (rate: Int, channels: Int, float: Bool)) throws {
        if resampler != nil { audio.swr_free(&resampler) }
        guard let context else { return }
        var inputLayout = AVChannelLayout()
        audio.av_channel_layout_default(&inputLayout, Int32(input.channels))
        defer { audio.av_channel_layout_uninit(&inputLayout) }
        let made = withUnsafeMutablePointer(to: &context.pointee.ch_layout) { outputLayout in
            audio.swr_alloc_set_opts2(
                &resampler, outputLayout, sampleFormat, context.pointee.sample_rate, &inputLayout,
                input.float ? AV_SAMPLE_FMT_FLTP : AV_SAMPLE_FMT_S16, Int32(input.rate), 0, nil)
        }
        guard made >= 0, resampler != nil, audio.swr_init(resampler) >= 0 else {
            throw AudioEncodingError(
                .encoderFailure,
                "libswresample cannot convert \(input.channels) channels at \(input.rate) Hz for \(format.codec)")
        }
        resamplerInput = input
        resamplerCounts = (0, 0)
    }

    /// The input's planes as libswresample reads them (none when flushing).
    private func withInputPlanes(of pcm: PCMFrame?, _ body: (UnsafeMutablePointer<UnsafePointer<UInt8>?>?) -> Int32)
        throws
        -> Int32
    {
        switch pcm?.samples {
        case nil: return body(nil)
        case .int16Interleaved(let values):
            guard values.count >= (pcm?.sampleCount ?? 0) * (pcm?.channels ?? 0) else { throw Self.shortInput }
            return values.withUnsafeBytes { bytes in
                withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>?.self, capacity: 1) { planes in
                    planes[0] = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
                    return body(planes.baseAddress)
                }
            }
        case .floatPlanar(let channels):
            let count = pcm?.sampleCount ?? 0
            guard channels.count == pcm?.channels, channels.allSatisfy({ $0.count >= count }) else {
                throw Self.shortInput
            }
            // The planes in one buffer, one after the other.
            let joined = channels.flatMap { $0.prefix(count) }
            return joined.withUnsafeBytes { bytes in
                var planes = channels.indices.map { plane in
                    bytes.baseAddress.map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self) + plane * count * 4) }
                }
                return planes.withUnsafeMutableBufferPointer { body($0.baseAddress) }
            }
        }
    }

    private static let shortInput = AudioEncodingError(
        .invalidConfiguration, "the PCM frame holds fewer samples than its sample count and channels say")

    // MARK: - Encoding

    /// Sends the first `samples` pending samples as one frame (padded with silence to a whole frame when the
    /// codec takes no short one) and emits the packets it gives.
    private func encodeFrame(samples: Int, emit: (AudioFrame) throws -> Void) throws {
        guard let context, let frame, let packet else { return }
        guard audio.av_frame_make_writable(frame) >= 0 else {
            throw AudioEncodingError(.encoderFailure, "libavutil could not make the frame writable")
        }
        let count = takesShortLastFrame ? samples : frameSamples
        let bytes = samples * planeBytesPerSample
        for plane in pending.indices {
            guard let destination = cffmpeg_frame_audio_plane(frame, Int32(plane)) else { continue }
            pending[plane].withUnsafeBufferPointer { source in
                if let start = source.baseAddress { destination.update(from: start, count: bytes) }
            }
            if count > samples {
                (destination + bytes).initialize(repeating: 0, count: (count - samples) * planeBytesPerSample)
            }
            pending[plane].removeFirst(bytes)
        }
        frame.pointee.nb_samples = Int32(count)
        frame.pointee.pts = samplesIn
        samplesIn += Int64(count)
        let status = audio.avcodec_send_frame(context, frame)
        guard status >= 0 else {
            throw AudioEncodingError(
                .encoderFailure, "libavcodec refused a \(format.codec) frame: \(ff.errorText(status))")
        }
        try receivePackets(context: context, packet: packet, emit: emit)
    }

    private func receivePackets(
        context: UnsafeMutablePointer<AVCodecContext>, packet: UnsafeMutablePointer<AVPacket>,
        emit: (AudioFrame) throws -> Void
    ) throws {
        while true {
            let status = audio.avcodec_receive_packet(context, packet)
            if status == cffmpeg_eagain() || status == cffmpeg_eof() { return }
            guard status >= 0 else {
                throw AudioEncodingError(
                    .encoderFailure, "libavcodec failed to encode \(format.codec): \(ff.errorText(status))")
            }
            defer { audio.av_packet_unref(packet) }
            let size = Int(packet.pointee.size)
            guard size > 0, let data = packet.pointee.data else { continue }
            let pts = packet.pointee.pts != cffmpeg_nopts() ? packet.pointee.pts : samplesIn
            let first = firstTimestamp ?? pts
            firstTimestamp = first
            let bytes = Array(UnsafeBufferPointer(start: data, count: size))
            if format.codec == .g726 {
                try cutG726(bytes, at: pts - first, emit: emit)
            } else {
                try emitFrame(bytes[...], at: pts - first, samples: Int(packet.pointee.duration), emit: emit)
            }
        }
    }

    /// A coded frame `samples` long whose first sample is `position` samples after the first frame's, dated
    /// at the format's clock (G.722's 8000 Hz clock runs at half its sampling rate).
    private func emitFrame(
        _ bytes: ArraySlice<UInt8>, at position: Int64, samples: Int, emit: (AudioFrame) throws -> Void
    ) throws {
        let ticks = position * Int64(format.clockRate) / Int64(max(1, codecRate))
        framesEncoded += 1
        try emit(
            AudioFrame(
                codec: format.codec, timestamp: UInt64(max(0, ticks)), clockRate: format.clockRate,
                sampleCount: samples,
                bytes: bytes, ssrc: 0))
    }

    /// libavcodec's G.726 encodes 1640 to 4096 samples a frame (about 1 KB); its code words go out in 20 ms
    /// frames, as RTP carries them: 160 samples are whole bytes at every code size. What is short of 20 ms
    /// waits for the next packet, or for the end.
    private func cutG726(_ bytes: [UInt8], at position: Int64, emit: (AudioFrame) throws -> Void) throws {
        if g726Held.bytes.isEmpty { g726Held.position = position }
        g726Held.bytes += bytes
        let samples = format.sampleRate / 50
        let pieceBytes = samples * format.bitsPerSample / 8
        while g726Held.bytes.count >= pieceBytes || (drained && !g726Held.bytes.isEmpty) {
            let count = min(pieceBytes, g726Held.bytes.count)
            let piece = g726Held.bytes.prefix(count)
            try emitFrame(piece, at: g726Held.position, samples: count * 8 / max(1, format.bitsPerSample), emit: emit)
            g726Held.bytes.removeFirst(count)
            g726Held.position += Int64(samples)
        }
    }

    // MARK: - The codec

    private static func encoder(
        for format: AudioFormat, aacConfiguration: AudioSpecificConfig?, audio: cffmpeg_audio_api
    ) throws(AudioEncodingError) -> (
        codec: UnsafePointer<AVCodec>, sampleFormat: AVSampleFormat
    ) {
        let name: String
        let sampleFormat: AVSampleFormat
        switch format.codec {
        case .pcmu: (name, sampleFormat) = ("pcm_mulaw", AV_SAMPLE_FMT_S16)
        case .pcma: (name, sampleFormat) = ("pcm_alaw", AV_SAMPLE_FMT_S16)
        case .l16: (name, sampleFormat) = ("pcm_s16be", AV_SAMPLE_FMT_S16)
        case .g722: (name, sampleFormat) = ("g722", AV_SAMPLE_FMT_S16)
        // libavcodec's "g726" writes AAL2's bit order, "g726le" RFC 3551's.
        case .g726: (name, sampleFormat) = (format.packing == .aal2 ? "g726" : "g726le", AV_SAMPLE_FMT_S16)
        case .aac:
            let objectType = aacConfiguration?.objectType ?? 0
            guard objectType == 2 else {
                throw AudioEncodingError(
                    .invalidConfiguration,
                    "the format's AAC is object type \(objectType); FFmpeg's encoder makes AAC-LC (2) only")
            }
            (name, sampleFormat) = ("aac", AV_SAMPLE_FMT_FLTP)
        case .opus: (name, sampleFormat) = ("libopus", AV_SAMPLE_FMT_S16)
        case .aacLATM:
            throw AudioEncodingError(
                .invalidConfiguration,
                "AAC in LATM (MP4A-LATM) is not sent by this library: a camera's mpeg4-generic AAC is")
        }
        guard let codec = audio.avcodec_find_encoder_by_name(name) else {
            throw AudioEncodingError(
                .encoderUnavailable,
                "this libavcodec has no \(name) encoder for \(format.codec)"
                    + (format.codec == .opus ? " (it is built without libopus)" : ""))
        }
        return (codec, sampleFormat)
    }

    /// The AudioSpecificConfig of an AAC format (its fmtp's `config`).
    private static func configuration(of format: AudioFormat) throws(AudioEncodingError) -> AudioSpecificConfig {
        do {
            return try AudioSpecificConfig(format: format)
        } catch {
            throw AudioEncodingError(.invalidConfiguration, "\(format.codec): \(error)")
        }
    }
}
