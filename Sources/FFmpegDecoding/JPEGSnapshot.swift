import H26x
import VideoDecoding

/// A keyframe as a JPEG file: decoded by libavcodec, encoded by its MJPEG encoder (``FFmpegJPEGEncoder``). Each
/// snapshot opens a decoder for its one keyframe and closes it, so nothing decodes while nobody asks.
///
/// ```swift
/// let jpeg = try JPEGSnapshot.jpeg(of: latest)            // a LatestKeyframe kept as the units passed
/// let same = try JPEGSnapshot.jpeg(of: unit, parameterSets: sets)
/// ```
public enum JPEGSnapshot {
    /// The JPEG file of `keyframe` (an H.264, H.265 or JPEG access unit), decoded with `parameterSets` when it does
    /// not carry its own, at `quality` (``FFmpegJPEGEncoder/qualityRange``).
    /// - Throws: ``VideoDecodingError``: `.invalidCall` for a unit that is not a keyframe, `.noFrames` when it decodes
    ///   to no picture (its parameter sets unknown, say), or what the decoder or encoder met.
    public static func jpeg(of keyframe: AccessUnit, parameterSets: ParameterSets? = nil, quality: Int = 2) throws
        -> [UInt8]
    {
        guard keyframe.isKeyframe else {
            throw VideoDecodingError(
                .invalidCall, "a snapshot decodes a keyframe: this \(keyframe.codec) unit is not one")
        }
        let encoder = try FFmpegJPEGEncoder(quality: quality)
        let decoder = try FFmpegVideoDecoder(
            codec: keyframe.codec, parameterSets: parameterSets, configuration: .init(threads: 1, poolCapacity: 1))
        var picture: I420Frame?
        try decoder.decode(keyframe) { picture = picture ?? $0 }
        try decoder.drain { picture = picture ?? $0 }
        guard let picture else {
            let reason = decoder.lastError.map { ": libavcodec said \($0)" } ?? ""
            throw VideoDecodingError(
                .noFrames,
                "the \(keyframe.codec) keyframe decoded to no picture\(reason); its parameter sets may be missing "
                    + "(give the track's, from its SDP)")
        }
        return try encoder.encode(picture)
    }

    /// The JPEG file of the latest keyframe `latest` has noted.
    /// - Throws: ``VideoDecodingError`` `.noFrames` before any keyframe was noted; else as
    ///   ``jpeg(of:parameterSets:quality:)``.
    public static func jpeg(of latest: LatestKeyframe, quality: Int = 2) throws -> [UInt8] {
        guard let keyframe = latest.keyframe else {
            throw VideoDecodingError(
                .noFrames,
                "no complete keyframe has come yet: a snapshot needs one (cameras send one every few seconds)")
        }
        return try jpeg(of: keyframe, parameterSets: latest.parameterSets, quality: quality)
    }
}
