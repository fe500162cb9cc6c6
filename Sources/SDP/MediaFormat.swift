/// What a media section carries: video (H.264, H.265, JPEG) or audio the library takes apart, or data it
/// hands on (ONVIF metadata documents, or any other payload as raw units).
public enum MediaFormat: Sendable, Hashable {
    case video(VideoFormat)
    case audio(AudioFormat)
    case data(DataFormat)

    /// The RTP payload type.
    public var payloadType: UInt8 {
        switch self {
        case .video(let format): format.payloadType
        case .audio(let format): format.payloadType
        case .data(let format): format.payloadType
        }
    }

    /// The RTP clock rate.
    public var clockRate: Int {
        switch self {
        case .video(let format): format.clockRate
        case .audio(let format): format.clockRate
        case .data(let format): format.clockRate
        }
    }

    /// Video, audio, metadata or application data.
    public var kind: MediaKind {
        switch self {
        case .video: .video
        case .audio: .audio
        case .data(let format): format.content == .raw ? .application : .metadata
        }
    }

    /// The codec's encoding name as SDP writes it (`H264`, `mpeg4-generic`, `PCMU`, `G726-32`,
    /// `vnd.onvif.metadata`, ...; for data without an `a=rtpmap`, its payload type).
    public var encodingName: String {
        switch self {
        case .video(let format): format.codec.encodingName
        case .audio(let format): format.encodingName
        case .data(let format): format.encodingName ?? "payload type \(format.payloadType)"
        }
    }

    /// The data format, when it is one.
    public var dataFormat: DataFormat? {
        if case .data(let format) = self { format } else { nil }
    }

    /// The video format, when it is one.
    public var videoFormat: VideoFormat? {
        if case .video(let format) = self { format } else { nil }
    }

    /// The audio format, when it is one.
    public var audioFormat: AudioFormat? {
        if case .audio(let format) = self { format } else { nil }
    }
}

/// The kinds of media a session's tracks carry, by which a client chooses what to set up.
public enum MediaKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case video
    case audio
    /// ONVIF metadata (`vnd.onvif.metadata`): analytics, events, PTZ status, as XML documents.
    case metadata
    /// Any other payload (KLV, MPEG-TS, a vendor's data), handed on raw.
    case application

    public var description: String { rawValue }
}

extension MediaDescription {
    /// Its video format, else its audio format, else the data its first payload type carries (ONVIF
    /// metadata, or anything else to hand on raw); nil for a section without a payload type.
    public var mediaFormat: MediaFormat? {
        if let video = videoFormat { return .video(video) }
        if mediaType.lowercased() == "audio", let audio = audioFormat { return .audio(audio) }
        return dataFormat.map { .data($0) }
    }

    /// What its first payload type carries, as data: ONVIF metadata by its encoding name, else a raw payload
    /// (whatever the section's media type); nil without a payload type.
    public var dataFormat: DataFormat? {
        guard let payloadType = payloadTypes.first else { return nil }
        let map = rtpMap(for: payloadType)
        let clockRate = map.flatMap { $0.hasUsableClockRate ? $0.clockRate : nil } ?? 90_000
        let content: DataFormat.Content =
            switch map?.encodingName.lowercased() {
            case "vnd.onvif.metadata": .onvifMetadata(gzip: false)
            case "vnd.onvif.metadata.gzip": .onvifMetadata(gzip: true)
            default: .raw
            }
        return DataFormat(
            content: content, mediaType: mediaType, payloadType: payloadType, encodingName: map?.encodingName,
            clockRate: clockRate)
    }
}
