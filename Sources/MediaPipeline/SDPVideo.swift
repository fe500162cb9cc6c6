import H26x
import RTP
import SDP

/// Turns an SDP video format into the depacketizer it calls for.
public enum SDPVideo {
    /// A depacketizer for `format`, with its parameter sets and de-interleaving settings.
    ///
    /// Parameter-set entries that are not valid base64 or hold no parameter set are left out, each passed
    /// to `warn`: the stream's in-band sets serve instead (and replace the SDP's whenever they arrive).
    public static func depacketizer(
        for format: VideoFormat, warn: (H26xError) -> Void = { _ in }
    ) -> VideoDepacketizer {
        let codec = format.codec
        let sets = parameterSets(of: format, warn: warn)
        // Mode 2 (H.264) and DON (H.265) need a de-interleaving buffer; a missing depth means the sender keeps
        // the order. The configuration's initializer bounds what the SDP says (depth, bytes).
        let interleaved = codec == .h264 ? format.packetizationMode == 2 : format.maxDONDiff > 0
        let configuration = DepacketizerConfiguration(
            deinterleavingDepth: interleaved ? max(1, format.deinterleavingDepth) : 0,
            deinterleavingBytes: format.deinterleavingBytes ?? DepacketizerConfiguration.defaultDeinterleavingBytes,
            payloadType: format.payloadType)
        switch codec {
        case .h264:
            return VideoDepacketizer(H264Depacketizer(configuration: configuration, parameterSets: sets))
        case .h265:
            return VideoDepacketizer(
                HEVCDepacketizer(configuration: configuration, parameterSets: sets, maxDONDiff: format.maxDONDiff))
        }
    }

    /// The parameter sets of `format` (`sprop-parameter-sets`, `sprop-vps` / `-sps` / `-pps`): what its
    /// depacketizer starts from and its decoder is configured with. Entries that are not valid are left out,
    /// each passed to `warn`.
    public static func parameterSets(of format: VideoFormat, warn: (H26xError) -> Void = { _ in }) -> ParameterSets {
        var sets = ParameterSets(codec: format.codec)
        for (name, value) in format.parameterSetAttributes {
            for problem in sets.addValid(sdpParameter: name, value: value) { warn(problem) }
        }
        return sets
    }

    /// The first video format of a description (or the one with `payloadType`).
    public static func videoFormat(in description: SessionDescription, payloadType: UInt8? = nil) -> VideoFormat? {
        for media in description.media {
            guard let format = media.videoFormat, payloadType == nil || payloadType == format.payloadType else {
                continue
            }
            return format
        }
        return nil
    }
}
