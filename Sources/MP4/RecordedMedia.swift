import Audio
import H26x
import MediaPipeline
import RTP
import SDP

extension MP4Index.Track {
    /// The format this track is served with: H.264 and H.265 with the parameter sets of their configuration record
    /// (`avcC`, `hvcC`), AAC (`mp4a`, as `mpeg4-generic` AAC-hbr with the `esds`'s AudioSpecificConfig), Opus
    /// (`Opus`, as `opus/48000/2`, RFC 7587: whatever its channels, its packets go as they are), G.711 (`ulaw`,
    /// `alaw`); nil for a codec the library does not serve from a file.
    public var mediaFormat: MediaFormat? {
        switch codec {
        case "mp4a":
            guard let bytes = audioSpecificConfig, let config = try? AudioSpecificConfig(bytes) else { return nil }
            var format = AudioFormat(
                codec: .aac, payloadType: 97, clockRate: config.samplingRate, channels: config.channelConfiguration)
            format.config = config.hex
            format.mode = "AAC-hbr"
            (format.sizeLength, format.indexLength, format.indexDeltaLength) = (13, 3, 3)
            return .audio(format)
        case "avc1", "avc3", "hvc1", "hev1":
            guard let sets = parameterSets else { return nil }
            return .video(VideoFormat(parameterSets: sets))
        case "Opus": return .audio(AudioFormat(codec: .opus, payloadType: 111, clockRate: 48_000, channels: 2))
        case "ulaw": return .audio(AudioFormat(codec: .pcmu, payloadType: 0, clockRate: 8000))
        case "alaw": return .audio(AudioFormat(codec: .pcma, payloadType: 8, clockRate: 8000))
        default: return nil
        }
    }

    /// The DecoderSpecificInfo of an `esds` (ISO/IEC 14496-1 section 7.2.6: ES_Descriptor, then its
    /// DecoderConfigDescriptor, then that): the AudioSpecificConfig; nil when it does not read.
    var audioSpecificConfig: [UInt8]? {
        var r = BoxReader(configuration[...], path: "esds")
        func descriptor() throws(MP4Error) -> (tag: UInt8, size: Int) {
            let tag = try r.u8()
            var size = 0
            for _ in 0..<4 {
                let byte = try r.u8()
                size = size << 7 | Int(byte & 0x7F)
                if byte & 0x80 == 0 { break }
            }
            return (tag, size)
        }
        do {
            try r.skip(4)  // version and flags
            guard try descriptor().tag == 0x03 else { return nil }
            try r.skip(2)  // ES_ID
            let flags = try r.u8()
            if flags & 0x80 != 0 { try r.skip(2) }  // dependsOn_ES_ID
            if flags & 0x40 != 0 { try r.skip(Int(try r.u8())) }  // URL
            if flags & 0x20 != 0 { try r.skip(2) }  // OCR_ES_Id
            guard try descriptor().tag == 0x04 else { return nil }
            try r.skip(13)  // object type, stream type, buffer size, bit rates
            let info = try descriptor()
            guard info.tag == 0x05 else { return nil }
            return Array(try r.slice(info.size))
        } catch {
            return nil
        }
    }

    var videoCodec: VideoCodec? {
        switch codec {
        case "avc1", "avc3": .h264
        case "hvc1", "hev1": .h265
        default: nil
        }
    }

    /// The parameter sets of the configuration record (ISO/IEC 14496-15 sections 5.3.3.1 and 8.3.3.1); nil when it
    /// does not read or holds none.
    var parameterSets: ParameterSets? {
        guard let codec = videoCodec else { return nil }
        var sets = ParameterSets(codec: codec)
        var r = BoxReader(configuration[...], path: codec == .h264 ? "avcC" : "hvcC")
        do {
            if codec == .h264 {
                try r.skip(5)
                let spsCount = Int(try r.u8() & 0x1F)
                for _ in 0..<spsCount { _ = sets.update(NALUnit(codec: codec, bytes: try r.slice(Int(try r.u16())))) }
                for _ in 0..<Int(try r.u8()) {
                    _ = sets.update(NALUnit(codec: codec, bytes: try r.slice(Int(try r.u16()))))
                }
            } else {
                try r.skip(22)
                for _ in 0..<Int(try r.u8()) {
                    try r.skip(1)
                    for _ in 0..<Int(try r.u16()) {
                        _ = sets.update(NALUnit(codec: codec, bytes: try r.slice(Int(try r.u16()))))
                    }
                }
            }
        } catch {
            return nil
        }
        return sets.all.isEmpty ? nil : sets
    }

    /// The 4-byte length before each NAL unit of a sample (`lengthSizeMinusOne` + 1 of the record): 1, 2 or 4.
    var nalLengthSize: Int {
        let at = videoCodec == .h265 ? 21 : 4
        guard configuration.count > at else { return 4 }
        return Int(configuration[at] & 3) + 1
    }

    /// A presentation time of this track as a time of its served format's clock, counted from its earliest sample
    /// or its presentation's start, whichever comes first (AAC's priming frame is shown before the start): every
    /// sample's time is then at or after 0, and none is clamped onto another's.
    func rtpTime(_ presentationTime: Int64, clockRate: Int) -> UInt64 {
        let origin = min(presentationStart, earliestPresentation)
        let ticks = UInt64(max(0, MP4Index.Sample.saturating(presentationTime, -origin)))
        let (scale, rate) = (UInt64(timescale), UInt64(clockRate))
        return (ticks / scale) &* rate &+ (ticks % scale) * rate / scale
    }

    /// The time of `seconds` into the presentation, as ``rtpTime(_:clockRate:)`` counts.
    func rtpTime(atSeconds seconds: Double, clockRate: Int) -> UInt64 {
        rtpTime(presentationTime(atSeconds: max(0, seconds)), clockRate: clockRate)
    }
}

/// What a track is served as, worked out once when its file opens rather than for each sample: its format, its
/// configuration's parameter sets (put before a keyframe that carries none) and its audio frames' length.
struct ServedTrack: Sendable {
    let format: MediaFormat
    let parameterSets: ParameterSets?
    /// Samples per frame: an AAC configuration's frame length (1024 or 960); 0 for G.711 (a byte each), Opus (each
    /// packet as long as its sample) and video.
    let audioFrameLength: Int

    init?(_ track: MP4Index.Track) {
        guard let format = track.mediaFormat else { return nil }
        self.format = format
        parameterSets = track.parameterSets
        let config = track.codec == "mp4a" ? track.audioSpecificConfig.flatMap { try? AudioSpecificConfig($0) } : nil
        audioFrameLength = config?.frameLength ?? (track.codec == "mp4a" ? 1024 : 0)
    }
}

extension MP4FileReader {
    /// The format track `track` is served with (its ``MP4Index/Track/mediaFormat``, worked out when the file
    /// opened); nil for a track not served.
    public func mediaFormat(track: Int) -> MediaFormat? { (servedTracks[safe: track] ?? nil)?.format }

    /// The timestamp ``unit(track:sample:playedFrom:scale:)`` gives a unit of track `track` shown `seconds` into the
    /// recording (what a server's RTP-Info names for a range that starts there); nil for a track not served.
    public func timestamp(track: Int, atSeconds seconds: Double) -> UInt64? {
        guard let served = servedTracks[safe: track] ?? nil else { return nil }
        return index.tracks[track].rtpTime(atSeconds: seconds, clockRate: served.format.clockRate)
    }

    /// The timestamp of sample `sample` of track `track` as ``unit(track:sample:playedFrom:scale:)`` gives it,
    /// without reading the sample; nil for a sample or track not served.
    public func timestamp(track: Int, sample: Int, playedFrom start: Double = 0, scale: Double = 1) -> UInt64? {
        guard let served = servedTracks[safe: track] ?? nil, let entry = index.tracks[track].samples[safe: sample]
        else { return nil }
        let recorded = index.tracks[track]
        let clockRate = served.format.clockRate
        let timestamp = recorded.rtpTime(entry.presentationTime, clockRate: clockRate)
        guard scale != 1, scale.isFinite, scale != 0 else { return timestamp }
        let origin = recorded.rtpTime(atSeconds: start, clockRate: clockRate)
        // Backwards, the RTP time still rises (RFC 7826 section 18.46): by how far before the start a unit is.
        if scale < 0 {
            return timestamp < origin ? origin + UInt64((Double(origin - timestamp) / -scale).rounded()) : origin
        }
        return timestamp > origin ? origin + UInt64((Double(timestamp - origin) / scale).rounded()) : timestamp
    }

    /// The sample `sample` of track `track` as a unit to serve: a picture's NAL units (the configuration's
    /// parameter sets before a keyframe's when the sample carries none) or an audio frame, its timestamp the
    /// sample's presentation time from the track's start on the format's clock (90 kHz for video). Played at
    /// `scale` from `start` seconds, the time after `start` passes `scale` times as fast: the RTP time of a
    /// recording played twice as fast runs at the wall clock's pace, as RTSP 2.0 (RFC 7826 section 18.46) says it
    /// follows the play's timing, and a client multiplies it back by the scale. Played backwards (a negative
    /// `scale`), the RTP time rises as the recording's falls, at the same pace.
    ///
    /// - Throws: ``MP4Error`` `.readFailed` when the bytes cannot be read, `.invalidFile` when a NAL unit's length
    ///   runs past its sample, `.unsupportedCodec` when the track has no ``MP4Index/Track/mediaFormat``.
    public func unit(track: Int, sample: Int, playedFrom start: Double = 0, scale: Double = 1) throws(MP4Error)
        -> MediaUnit
    {
        guard let entry = index.tracks[safe: track]?.samples[safe: sample] else {
            throw MP4Error(.invalidFile, "no sample \(sample) in track \(track)")
        }
        let recorded = index.tracks[track]
        guard let served = servedTracks[track],
            let timestamp = timestamp(track: track, sample: sample, playedFrom: start, scale: scale)
        else {
            throw MP4Error(.unsupportedCodec, "track \(recorded.id) is '\(recorded.codec)', which is not served")
        }
        let bytes = try bytes(of: entry)
        guard let codec = recorded.videoCodec else {
            let audio = served.format.audioFormat?.codec ?? .pcmu
            let clockRate = served.format.clockRate
            let sampleCount =
                switch audio {
                case .opus: Int(UInt64(entry.duration) * UInt64(clockRate) / UInt64(max(1, recorded.timescale)))
                default: served.audioFrameLength > 0 ? served.audioFrameLength : bytes.count
                }
            return .audio(
                AudioFrame(
                    codec: audio, timestamp: timestamp, clockRate: clockRate, sampleCount: sampleCount,
                    bytes: bytes[...], ssrc: 0))
        }
        var nalUnits: [ArraySlice<UInt8>] = []
        var rest = bytes[...]
        let lengthSize = recorded.nalLengthSize
        while !rest.isEmpty {
            guard rest.count >= lengthSize else {
                throw MP4Error(.invalidFile, "sample \(sample) of track \(recorded.id) ends inside a NAL unit's length")
            }
            let length = rest.prefix(lengthSize).reduce(0) { $0 << 8 | Int($1) }
            rest = rest.dropFirst(lengthSize)
            guard length <= rest.count else {
                throw MP4Error(
                    .invalidFile,
                    "sample \(sample) of track \(recorded.id) has a NAL unit of \(length) bytes past its end")
            }
            nalUnits.append(rest.prefix(length))
            rest = rest.dropFirst(length)
        }
        let carriesSets = nalUnits.contains { NALUnit(codec: codec, bytes: $0).isParameterSet }
        if entry.isSync, !carriesSets, let sets = served.parameterSets {
            nalUnits.insert(contentsOf: sets.all.map(\.bytes), at: 0)
        }
        return .video(AccessUnit(codec: codec, timestamp: timestamp, nalUnits: nalUnits))
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
