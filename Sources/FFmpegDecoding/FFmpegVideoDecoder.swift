import RTP
import CFFmpegLoader
import H26x
import VideoDecoding

/// Decodes H.264, H.265 and JPEG access units with libavcodec into I420 frames.
///
/// H.264 and H.265 units go in as Annex B, with the known parameter sets put before keyframes that lack
/// them; JPEG units as their files. Pictures that are not 8-bit 4:2:0 are converted with libswscale (or, when
/// even that is impossible, a ``VideoDecodingError`` names the format); full-range pictures (JPEG's) stay
/// full range (``I420Frame/isFullRange``). Frames keep the access unit's RTP timestamp through the
/// decoder's reordering (B-frames). Errors on damaged input are counted and decoding goes on.
///
/// Not thread-safe: use one decoder from one task at a time.
public final class FFmpegVideoDecoder: VideoDecoder {
    /// Settings.
    public struct Configuration: Sendable {
        /// The thread counts a decoder takes: more than libavcodec uses to any profit would only cost memory
        /// (each frame thread holds its own pictures).
        public static let threadRange = 0...64
        /// The largest ``outputSize`` side, as for H.265 pictures.
        public static let maxOutputSide = 16384

        /// Decoding threads (``threadRange``); 1 decodes in the calling thread with no frame delay, 0 lets
        /// libavcodec choose.
        public var threads: Int
        /// Scale every frame to this size (even numbers, as WebRTC encoders want; odd ones are rounded
        /// down, at most ``maxOutputSide``); nil keeps the stream's.
        public var outputSize: (width: Int, height: Int)?
        /// Frame buffers kept for reuse: frames a consumer lets go of before this many more are decoded
        /// cost no allocation.
        public var poolCapacity: Int

        public init(threads: Int = 1, outputSize: (width: Int, height: Int)? = nil, poolCapacity: Int = 4) {
            self.threads = threads
            self.outputSize = outputSize.map { (max(2, $0.width / 2 * 2), max(2, $0.height / 2 * 2)) }
            self.poolCapacity = poolCapacity
        }
    }

    public let codec: VideoCodec
    public let configuration: Configuration
    /// libavcodec's, libavutil's and libswscale's functions, loaded with the first decoder.
    private let ff: cffmpeg_api
    private var context: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var scaler: OpaquePointer?
    private var pool: FramePool
    private var input: [UInt8] = []
    private let writer = ElementaryStreamWriter(framing: .annexB)
    private var parameterSets: ParameterSets
    private let initialParameterSets: ParameterSets
    /// What is known about access units still inside the decoder, by timestamp.
    private var inFlight: [Int64: (keyframe: Bool, damaged: Bool)] = [:]
    private var damagedUntilKeyframe = false

    /// Packets the decoder refused or pictures it reported as corrupt.
    public private(set) var decodeErrors = 0
    /// The last error libavcodec reported, in its words.
    public private(set) var lastError: String?
    public private(set) var framesDecoded = 0

    /// Opens a decoder. `parameterSets` (from the SDP) also become the codec's extradata.
    public init(
        codec: VideoCodec, parameterSets: ParameterSets? = nil, configuration: Configuration = Configuration()
    ) throws {
        try configuration.validate()
        self.ff = try FFmpegLibrary.functions()
        self.codec = codec
        self.configuration = configuration
        self.pool = FramePool(capacity: configuration.poolCapacity)
        self.parameterSets = parameterSets ?? ParameterSets(codec: codec)
        self.initialParameterSets = self.parameterSets
        let codecID =
            switch codec {
            case .h264: AV_CODEC_ID_H264
            case .h265: AV_CODEC_ID_HEVC
            case .jpeg: AV_CODEC_ID_MJPEG
            }
        guard let decoder = ff.avcodec_find_decoder(codecID) else {
            throw VideoDecodingError(.decoderUnavailable, "this libavcodec has no \(codec) decoder")
        }
        guard let context = ff.avcodec_alloc_context3(decoder), let frame = ff.av_frame_alloc(),
            let packet = ff.av_packet_alloc()
        else { throw VideoDecodingError(.decoderFailure, "libavcodec could not allocate a decoder") }
        self.context = context
        self.frame = frame
        self.packet = packet
        context.pointee.thread_count = Int32(configuration.threads)
        if let sets = parameterSets, !sets.isEmpty {
            var extradata: [UInt8] = []
            for set in sets.all { extradata += [0, 0, 0, 1] + set.bytes }
            if let buffer = ff.av_mallocz(extradata.count + Int(AV_INPUT_BUFFER_PADDING_SIZE))?.assumingMemoryBound(
                to: UInt8.self)
            {
                buffer.update(from: extradata, count: extradata.count)
                context.pointee.extradata = buffer
                context.pointee.extradata_size = Int32(extradata.count)
            }
        }
        let status = ff.avcodec_open2(context, decoder, nil)
        guard status >= 0 else {
            throw VideoDecodingError(
                .decoderFailure, "libavcodec could not open the \(codec) decoder: \(ff.errorText(status))")
        }
        inFlight.reserveCapacity(64)
    }

    deinit {
        ff.avcodec_free_context(&context)
        ff.av_frame_free(&frame)
        ff.av_packet_free(&packet)
        if let scaler { ff.sws_freeContext(scaler) }
    }

    public func configure(parameterSets sets: ParameterSets) throws {
        for set in sets.all { parameterSets.update(set) }
    }

    public func decode(_ unit: AccessUnit, emit: (I420Frame) -> Void) throws {
        for nal in unit.nalUnits where nal.isParameterSet { parameterSets.update(nal) }
        // After a break, a unit that is not a keyframe refers to pictures of the stream before it.
        if !unit.isComplete || (unit.isDiscontinuity && !unit.isKeyframe) {
            damagedUntilKeyframe = true
        } else if unit.isKeyframe {
            damagedUntilKeyframe = false
        }
        let pts = Int64(bitPattern: unit.timestamp)
        if inFlight.count >= 64, let oldest = inFlight.keys.min() { inFlight[oldest] = nil }
        inFlight[pts] = (unit.isKeyframe, damagedUntilKeyframe)
        input.removeAll(keepingCapacity: true)
        if let jpeg = unit.jpeg {
            input.append(contentsOf: jpeg)
        } else {
            writer.write(unit, parameterSets: parameterSets, into: &input)
        }
        let size = input.count
        input.append(contentsOf: repeatElement(0, count: Int(AV_INPUT_BUFFER_PADDING_SIZE)))
        var status = send(size: size, pts: pts, keyframe: unit.isKeyframe)
        if status == cffmpeg_eagain() {
            try receive(emit: emit)
            status = send(size: size, pts: pts, keyframe: unit.isKeyframe)
        }
        if status < 0 && status != cffmpeg_eagain() { failed(status) }
        try receive(emit: emit)
    }

    public func drain(emit: (I420Frame) -> Void) throws {
        _ = ff.avcodec_send_packet(context, nil)
        try receive(emit: emit)
        ff.avcodec_flush_buffers(context)
        inFlight.removeAll(keepingCapacity: true)
    }

    public func flush() {
        ff.avcodec_flush_buffers(context)
        inFlight.removeAll(keepingCapacity: true)
    }

    public func reset() {
        flush()
        parameterSets = initialParameterSets
        damagedUntilKeyframe = false
    }

    private func send(size: Int, pts: Int64, keyframe: Bool) -> Int32 {
        guard let packet else { return cffmpeg_averror(22) }
        return input.withUnsafeMutableBufferPointer { buffer in
            packet.pointee.data = buffer.baseAddress
            packet.pointee.size = Int32(size)
            packet.pointee.pts = pts
            packet.pointee.dts = cffmpeg_nopts()
            packet.pointee.flags = keyframe ? AV_PKT_FLAG_KEY : 0
            // The packet is not reference-counted: libavcodec copies what it keeps before this returns.
            defer { packet.pointee.data = nil }
            return ff.avcodec_send_packet(context, packet)
        }
    }

    private func receive(emit: (I420Frame) -> Void) throws {
        guard let context, let frame else { return }
        try FFmpegLibrary.receiveFrames(ff, context: context, into: frame, failed: failed) {
            let pts =
                frame.pointee.best_effort_timestamp != cffmpeg_nopts()
                ? frame.pointee.best_effort_timestamp : frame.pointee.pts
            let known = inFlight.removeValue(forKey: pts)
            let corrupt = frame.pointee.decode_error_flags != 0 || frame.pointee.flags & AV_FRAME_FLAG_CORRUPT != 0
            if corrupt { decodeErrors += 1 }
            let converted = try convert(
                frame, timestamp: UInt64(bitPattern: pts), keyframe: known?.keyframe ?? (frame.pointee.key_frame != 0),
                damaged: (known?.damaged ?? damagedUntilKeyframe) || corrupt)
            framesDecoded += 1
            emit(converted)
        }
    }

    /// A status libavcodec refused a unit with: counted, and its words kept.
    private func failed(_ status: Int32) {
        decodeErrors += 1
        lastError = ff.errorText(status)
    }

    private func convert(_ frame: UnsafeMutablePointer<AVFrame>, timestamp: UInt64, keyframe: Bool, damaged: Bool)
        throws
        -> I420Frame
    {
        let width = Int(frame.pointee.width)
        let height = Int(frame.pointee.height)
        let decodedFormat = AVPixelFormat(frame.pointee.format)
        let fullRange = Self.isFullRange(decodedFormat) || frame.pointee.color_range == AVCOL_RANGE_JPEG
        // libswscale takes the range from the format: a full-range picture is converted as its J format, into
        // YUVJ420P, so that its samples keep their range.
        let format = fullRange ? Self.fullRangeFormat(decodedFormat) : decodedFormat
        let (outWidth, outHeight) = configuration.outputSize ?? (width, height)
        let strideY = outWidth
        let strideUV = (outWidth + 1) / 2
        let size = I420Frame.storageSize(height: outHeight, strideY: strideY, strideUV: strideUV)
        let direct = (format == AV_PIX_FMT_YUV420P || format == AV_PIX_FMT_YUVJ420P) && configuration.outputSize == nil
        if !direct {
            scaler = ff.sws_getCachedContext(
                scaler, Int32(width), Int32(height), format, Int32(outWidth), Int32(outHeight),
                fullRange ? AV_PIX_FMT_YUVJ420P : AV_PIX_FMT_YUV420P,
                SWS_BILINEAR, nil, nil, nil)
            guard scaler != nil else {
                let name = ff.av_get_pix_fmt_name(format).map { String(cString: $0) } ?? "format \(format.rawValue)"
                throw VideoDecodingError(
                    .unsupportedPixelFormat, "decoded pictures are \(name), which libswscale cannot convert to I420")
            }
        }
        let storage = pool.buffer(size: size) { out in
            guard let base = out.baseAddress else { return }
            let chromaRows = (outHeight + 1) / 2
            let uStart = base + strideY * outHeight
            let vStart = uStart + strideUV * chromaRows
            if direct {
                // Three planes, without an array of them (no allocation per frame).
                for plane in 0..<3 {
                    guard let source = cffmpeg_frame_plane(frame, Int32(plane)) else { continue }
                    let sourceStride = Int(cffmpeg_frame_stride(frame, Int32(plane)))
                    let destination = plane == 0 ? base : plane == 1 ? uStart : vStart
                    let (stride, rows) = plane == 0 ? (strideY, outHeight) : (strideUV, chromaRows)
                    for row in 0..<rows {
                        (destination + row * stride).update(from: source + row * sourceStride, count: stride)
                    }
                }
            } else {
                var destinations:
                    (
                        UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?,
                        UnsafeMutablePointer<UInt8>?
                    ) = (base, uStart, vStart, nil)
                var strides: (Int32, Int32, Int32, Int32) = (Int32(strideY), Int32(strideUV), Int32(strideUV), 0)
                withUnsafePointer(to: &frame.pointee.data) { sourcePlanes in
                    withUnsafePointer(to: &frame.pointee.linesize) { sourceStrides in
                        withUnsafeMutablePointer(to: &destinations) { destinationPlanes in
                            withUnsafeMutablePointer(to: &strides) { destinationStrides in
                                _ = ff.sws_scale(
                                    scaler,
                                    UnsafeRawPointer(sourcePlanes).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                                    UnsafeRawPointer(sourceStrides).assumingMemoryBound(to: Int32.self), 0,
                                    Int32(height),
                                    UnsafeRawPointer(destinationPlanes).assumingMemoryBound(
                                        to: UnsafeMutablePointer<UInt8>?.self),
                                    UnsafeRawPointer(destinationStrides).assumingMemoryBound(to: Int32.self))
                            }
                        }
                    }
                }
            }
        }
        var converted = I420Frame(
            width: outWidth, height: outHeight, timestamp: timestamp, isKeyframe: keyframe, mayBeDamaged: damaged,
            storage: storage, strideY: strideY, strideUV: strideUV)
        converted.isFullRange = fullRange
        return converted
    }

    /// The J (full-range) planar YUV formats libavcodec's JPEG decoder gives.
    private static func isFullRange(_ format: AVPixelFormat) -> Bool {
        switch format {
        case AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P, AV_PIX_FMT_YUVJ411P:
            true
        default: false
        }
    }

    /// The J format of a planar YUV format whose frame says it is full range (as newer decoders mark it).
    private static func fullRangeFormat(_ format: AVPixelFormat) -> AVPixelFormat {
        switch format {
        case AV_PIX_FMT_YUV420P: AV_PIX_FMT_YUVJ420P
        case AV_PIX_FMT_YUV422P: AV_PIX_FMT_YUVJ422P
        case AV_PIX_FMT_YUV444P: AV_PIX_FMT_YUVJ444P
        case AV_PIX_FMT_YUV440P: AV_PIX_FMT_YUVJ440P
        case AV_PIX_FMT_YUV411P: AV_PIX_FMT_YUVJ411P
        default: format
        }
    }
}

extension FFmpegVideoDecoder.Configuration {
    /// Throws `.invalidConfiguration`, naming the range, for a value no decoder should be opened with.
    func validate() throws(VideoDecodingError) {
        guard Self.threadRange.contains(threads) else {
            throw VideoDecodingError(
                .invalidConfiguration,
                "threads must be from \(Self.threadRange.lowerBound) (libavcodec chooses) to \(Self.threadRange.upperBound): \(threads)"
            )
        }
        if let size = outputSize,
            !(2...Self.maxOutputSide).contains(size.width)
                || !(2...Self.maxOutputSide).contains(size.height)
        {
            throw VideoDecodingError(
                .invalidConfiguration,
                "outputSize must be from 2x2 to \(Self.maxOutputSide)x\(Self.maxOutputSide): \(size.width)x\(size.height)"
            )
        }
        guard (0...1024).contains(poolCapacity) else {
            throw VideoDecodingError(.invalidConfiguration, "poolCapacity must be from 0 to 1024: \(poolCapacity)")
        }
    }
}
