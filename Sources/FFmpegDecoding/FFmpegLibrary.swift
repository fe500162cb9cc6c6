import CFFmpegLoader
import VideoDecoding

/// libavcodec, libavutil and libswscale, opened when the first decoder is made (`CFFmpegLoader`): a
/// program that links this module but never decodes does not load FFmpeg.
enum FFmpegLibrary {
    /// Their functions, with FFmpeg's own logging silenced (errors reach the user through the decoder).
    ///
    /// - Throws: ``VideoDecodingError`` `.decoderUnavailable` naming what could not be loaded.
    static func functions() throws -> cffmpeg_api {
        var reason = [CChar](repeating: 0, count: 512)
        guard let api = cffmpeg_load(&reason, reason.count) else {
            let detail = string(reason)
            throw VideoDecodingError(
                .decoderUnavailable,
                "FFmpeg is not usable: \(detail); install libavcodec, libavutil and libswscale (Debian: apt-get install"
                    + " libavcodec-dev libswscale-dev, which bring the libraries; macOS: brew install ffmpeg)")
        }
        api.pointee.av_log_set_level(cffmpeg_log_quiet())
        return api.pointee
    }

    /// The functions audio decoding and encoding call (libswresample's and the encoder's besides `functions()`'s),
    /// FFmpeg's logging silenced; or what could not be loaded and what to install, for the caller's error.
    static func audioFunctions() -> Result<(base: cffmpeg_api, audio: cffmpeg_audio_api), AudioLibraryMissing> {
        var reason = [CChar](repeating: 0, count: 512)
        guard let audio = cffmpeg_load_audio(&reason, reason.count), let base = cffmpeg_load(&reason, reason.count)
        else {
            return .failure(
                AudioLibraryMissing(
                    message:
                        "FFmpeg is not usable for audio: \(string(reason)); install libavcodec and libswresample (Debian:"
                        + " apt-get install libavcodec-dev libswresample-dev; macOS: brew install ffmpeg)"))
        }
        base.pointee.av_log_set_level(cffmpeg_log_quiet())
        return .success((base.pointee, audio.pointee))
    }

    struct AudioLibraryMissing: Error {
        let message: String
    }

    /// The C string written into `buffer` (by the loader, or by libavutil).
    static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Takes every frame the decoder has ready into `frame`, one `body` call each (the frame is unreferenced
    /// after it), until it needs more input or has no more; an error status goes to `failed` and ends it.
    static func receiveFrames(
        _ ff: cffmpeg_api, context: UnsafeMutablePointer<AVCodecContext>, into frame: UnsafeMutablePointer<AVFrame>,
        failed: (_ status: Int32) -> Void, _ body: () throws -> Void
    ) rethrows {
        while true {
            let status = ff.avcodec_receive_frame(context, frame)
            if status == cffmpeg_eagain() || status == cffmpeg_eof() { return }
            if status < 0 { return failed(status) }
            defer { ff.av_frame_unref(frame) }
            try body()
        }
    }
}

extension cffmpeg_api {
    /// libavcodec's words for an error status.
    func errorText(_ status: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(AV_ERROR_MAX_STRING_SIZE))
        _ = buffer.withUnsafeMutableBufferPointer { av_strerror(status, $0.baseAddress, $0.count) }
        return FFmpegLibrary.string(buffer)
    }
}
