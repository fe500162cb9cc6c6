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
            let detail = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw VideoDecodingError(
                .decoderUnavailable,
                "FFmpeg is not usable: \(detail); install libavcodec, libavutil and libswscale (Debian: apt-get install"
                    + " libavcodec-dev libswscale-dev, which bring the libraries; macOS: brew install ffmpeg)")
        }
        api.pointee.av_log_set_level(cffmpeg_log_quiet())
        return api.pointee
    }
}
