import CFFmpegLoader
import VideoDecoding

/// Encodes I420 frames as baseline JPEG files with libavcodec's MJPEG encoder: a camera's snapshot.
///
/// ```swift
/// let encoder = try FFmpegJPEGEncoder()
/// let jpeg = try encoder.encode(frame)   // a .jpg file's bytes
/// ```
///
/// JPEG is full range (JFIF): a limited-range frame (what H.264 and H.265 decoders give) is converted by libswscale
/// first, as `ffmpeg -i stream.h264 -frames:v 1 out.jpg` converts it; a full-range frame (a JPEG camera's) goes as
/// it is. The quality is FFmpeg's `-q:v` scale, fixed for every picture. An encoder holds codec state: use it from
/// one task at a time.
public final class FFmpegJPEGEncoder {
    /// FFmpeg's `-q:v` values: 2 is the best, 31 the smallest file.
    public static let qualityRange = 2...31
    /// The largest side a JPEG file can say (its size fields are 16 bits).
    public static let maxSide = 65_535

    /// The quality every picture is encoded at (``qualityRange``).
    public let quality: Int

    private let ff: cffmpeg_api
    private let audio: cffmpeg_audio_api
    private var context: UnsafeMutablePointer<AVCodecContext>?
    /// The size the codec was opened for: another size opens it again.
    private var size: (width: Int, height: Int)?
    private var picture: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var scaler: OpaquePointer?

    /// Loads FFmpeg and finds its MJPEG encoder; the codec opens at the first frame, for its size.
    /// - Throws: ``VideoDecodingError`` `.invalidConfiguration` for a quality outside ``qualityRange``,
    ///   `.decoderUnavailable` when FFmpeg or its MJPEG encoder is missing.
    public init(quality: Int = 2) throws {
        guard Self.qualityRange.contains(quality) else {
            throw VideoDecodingError(
                .invalidConfiguration, "a JPEG quality is from 2 (best) to 31 (smallest), as FFmpeg's -q:v: \(quality)")
        }
        self.quality = quality
        switch FFmpegLibrary.audioFunctions() {
        case .success(let loaded): (ff, audio) = loaded
        case .failure(let missing): throw VideoDecodingError(.decoderUnavailable, missing.message)
        }
        guard audio.avcodec_find_encoder(AV_CODEC_ID_MJPEG) != nil else {
            throw VideoDecodingError(.decoderUnavailable, "this libavcodec has no MJPEG encoder")
        }
        guard let picture = ff.av_frame_alloc(), let packet = ff.av_packet_alloc() else {
            throw VideoDecodingError(.decoderFailure, "libavcodec could not allocate a JPEG encoder")
        }
        self.picture = picture
        self.packet = packet
    }

    deinit {
        ff.avcodec_free_context(&context)
        ff.av_frame_free(&picture)
        ff.av_packet_free(&packet)
        if let scaler { ff.sws_freeContext(scaler) }
    }

    /// The JPEG file of `frame`.
    /// - Throws: ``VideoDecodingError`` `.invalidConfiguration` for a frame larger than a JPEG can say,
    ///   `.decoderFailure` when libavcodec or libswscale fails, with its words.
    public func encode(_ frame: I420Frame) throws -> [UInt8] {
        guard (1...Self.maxSide).contains(frame.width), (1...Self.maxSide).contains(frame.height) else {
            throw VideoDecodingError(
                .invalidConfiguration, "a JPEG is at most \(Self.maxSide) pixels a side: \(frame.width)x\(frame.height)"
            )
        }
        let context = try open(width: frame.width, height: frame.height)
        guard let picture, let packet else { throw VideoDecodingError(.invalidCall, "the encoder is closed") }
        try fill(picture, from: frame)
        var status = audio.avcodec_send_frame(context, picture)
        guard status >= 0 else { throw failure("take the picture", status) }
        status = audio.avcodec_send_frame(context, nil)  // one picture: drained at once
        guard status >= 0 else { throw failure("finish the picture", status) }
        var jpeg: [UInt8] = []
        while true {
            status = audio.avcodec_receive_packet(context, packet)
            if status == cffmpeg_eof() || status == cffmpeg_eagain() { break }
            guard status >= 0 else { throw failure("encode", status) }
            if let data = packet.pointee.data {
                jpeg.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(packet.pointee.size)))
            }
            audio.av_packet_unref(packet)
        }
        // A drained encoder takes nothing more: the next picture opens a new one.
        ff.avcodec_free_context(&self.context)
        size = nil
        guard !jpeg.isEmpty else {
            throw VideoDecodingError(.decoderFailure, "libavcodec's MJPEG encoder gave nothing")
        }
        return jpeg
    }

    /// The codec, open for pictures of this size at ``quality``.
    private func open(width: Int, height: Int) throws -> UnsafeMutablePointer<AVCodecContext> {
        if let context, let size, size == (width, height) { return context }
        ff.avcodec_free_context(&context)
        guard let codec = audio.avcodec_find_encoder(AV_CODEC_ID_MJPEG), let context = ff.avcodec_alloc_context3(codec)
        else { throw VideoDecodingError(.decoderFailure, "libavcodec could not allocate its MJPEG encoder") }
        self.context = context
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.pix_fmt = AV_PIX_FMT_YUVJ420P
        context.pointee.color_range = AVCOL_RANGE_JPEG
        context.pointee.time_base = AVRational(num: 1, den: 25)
        // A fixed quantizer (-q:v), not a bit rate: every snapshot alike, whatever its content.
        context.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
        context.pointee.global_quality = Int32(quality) * Int32(FF_QP2LAMBDA)
        let status = ff.avcodec_open2(context, codec, nil)
        guard status >= 0 else { throw failure("open the MJPEG encoder", status) }
        size = (width, height)
        return context
    }

    /// `frame`'s planes into `picture`, a full-range 4:2:0 picture of the codec's size.
    private func fill(_ picture: UnsafeMutablePointer<AVFrame>, from frame: I420Frame) throws {
        ff.av_frame_unref(picture)
        picture.pointee.format = AV_PIX_FMT_YUVJ420P.rawValue
        picture.pointee.width = Int32(frame.width)
        picture.pointee.height = Int32(frame.height)
        picture.pointee.quality = Int32(quality) * Int32(FF_QP2LAMBDA)
        var status = audio.av_frame_get_buffer(picture, 0)
        guard status >= 0 else { throw failure("allocate the picture", status) }
        status = audio.av_frame_make_writable(picture)
        guard status >= 0 else { throw failure("allocate the picture", status) }
        try frame.storage.withUnsafeBufferPointer { storage in
            guard let base = storage.baseAddress else { return }
            let planes = [
                (base, frame.strideY), (base + frame.strideY * frame.height, frame.strideUV),
                (base + frame.strideY * frame.height + frame.strideUV * frame.chromaHeight, frame.strideUV),
            ]
            if frame.isFullRange {
                for (index, (source, stride)) in planes.enumerated() {
                    guard let destination = cffmpeg_frame_plane(picture, Int32(index)) else { continue }
                    let destinationStride = Int(cffmpeg_frame_stride(picture, Int32(index)))
                    let (width, rows) =
                        index == 0 ? (frame.width, frame.height) : (frame.chromaWidth, frame.chromaHeight)
                    for row in 0..<rows {
                        (destination + row * destinationStride).update(from: source + row * stride, count: width)
                    }
                }
                return
            }
            // Limited range (16-235) to JPEG's full range, as FFmpeg's command line converts it.
            scaler = ff.sws_getCachedContext(
                scaler, Int32(frame.width), Int32(frame.height), AV_PIX_FMT_YUV420P, Int32(frame.width),
                Int32(frame.height), AV_PIX_FMT_YUVJ420P, SWS_BICUBIC, nil, nil, nil)
            guard let scaler else {
                throw VideoDecodingError(.decoderFailure, "libswscale cannot convert I420 to full-range 4:2:0")
            }
            var sources: (UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?) =
                (planes[0].0, planes[1].0, planes[2].0, nil)
            var sourceStrides: (Int32, Int32, Int32, Int32) = (
                Int32(frame.strideY), Int32(frame.strideUV), Int32(frame.strideUV), 0
            )
            withUnsafePointer(to: &sources) { sourcePlanes in
                withUnsafePointer(to: &sourceStrides) { strides in
                    withUnsafePointer(to: &picture.pointee.data) { destinations in
                        withUnsafePointer(to: &picture.pointee.linesize) { destinationStrides in
                            _ = ff.sws_scale(
                                scaler,
                                UnsafeRawPointer(sourcePlanes).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                                UnsafeRawPointer(strides).assumingMemoryBound(to: Int32.self), 0, Int32(frame.height),
                                UnsafeRawPointer(destinations).assumingMemoryBound(
                                    to: UnsafeMutablePointer<UInt8>?.self),
                                UnsafeRawPointer(destinationStrides).assumingMemoryBound(to: Int32.self))
                        }
                    }
                }
            }
        }
    }

    private func failure(_ what: String, _ status: Int32) -> VideoDecodingError {
        VideoDecodingError(.decoderFailure, "libavcodec could not \(what) as a JPEG: \(ff.errorText(status))")
    }
}
