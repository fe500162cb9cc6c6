import Audio
import H26x
import JPEG
import Metadata
import RTP
import SDP

/// A track's depacketizer, whatever its payload: made from the track's format (an SDP media section), it
/// takes the track's packets in sequence order (behind a ``ReorderBuffer``) and gives its ``MediaUnit``s.
///
/// ```swift
/// var depacketizer = Depacketizer(format: format)   // from the SDP: MediaDescription.mediaFormat
/// depacketizer.consume(output)                       // what the track's reorder buffer released
/// while let unit = depacketizer.next() { print(unit.track, unit.timestamp) }
/// ```
///
/// - H.264 (RFC 6184) and H.265 (RFC 7798) give access units (``MediaUnit/video(_:)``), starting from the
///   SDP's parameter sets and de-interleaving as the format says; Motion JPEG (RFC 2435) gives JPEG pictures
///   as access units of codec `.jpeg`, sized as the SDP announces above 2040 pixels.
/// - G.711, L16, AAC (RFC 3640, RFC 6416) and Opus give audio frames (``MediaUnit/audio(_:)``).
/// - A depacketizer for a capture without a description tells H.264 from H.265 by the first payloads
///   (``sniffing(configuration:)``).
///
/// A format it cannot take apart (an AAC configuration that does not read, a sniffed flow that is not
/// video) makes a depacketizer whose ``payload`` says why, and whose packets are counted and dropped.
/// In steady state nothing is allocated per packet.
public struct Depacketizer: Sendable {
    /// What a depacketizer takes apart.
    public enum Payload: Sendable, Hashable {
        /// Not known yet: told from the first payloads.
        case sniffing
        case video(VideoCodec)
        case audio(AudioCodec)
        /// ONVIF metadata documents.
        case metadata
        /// Raw units: the payloads of a track the library does not take apart.
        case raw
        /// Nothing: the reason says why (a format that cannot be read, a flow that is not video). Its
        /// packets are counted in ``Depacketizer/droppedPackets``.
        case unplayable(reason: String)
    }

    /// What it takes apart.
    public private(set) var payload: Payload
    // Exactly one of these is there, as `payload` says. Optionals rather than an enum's associated values:
    // mutating through an optional is in place, where taking an associated value out copies it (and, with
    // it, the buffers the units are assembled in).
    @usableFromInline var h26x: H26xDepacketizer?
    @usableFromInline var jpeg: JPEGDepacketizer?
    @usableFromInline var audioDepacketizer: AudioDepacketizer?
    @usableFromInline var metadataDepacketizer: MetadataDepacketizer?
    @usableFromInline var rawDepacketizer: RawDepacketizer?
    /// While sniffing: what the reorder buffer released before a payload told the codec.
    private var sniffed: (configuration: DepacketizerConfiguration, held: [ReorderBuffer.Output])?
    /// Whether `sniffed` is there: asked per packet, where looking at the optional would copy it out.
    private(set) var isSniffing = false
    /// Which of the optionals is there, as a byte: what each packet and each ask for a unit switches on, where
    /// looking at six optionals of large structs costs an outlined tag read each.
    @usableFromInline var active: Active = .none

    @usableFromInline enum Active: UInt8, Sendable {
        case none, h26x, jpeg, audio, metadata, raw
    }
    /// Packets dropped because it takes nothing apart (``Payload/unplayable(reason:)``).
    public private(set) var droppedPackets = 0

    /// H.264 and H.265 use a 90 kHz RTP clock.
    public static let videoClockRate = 90_000
    /// How many packets a sniffing depacketizer holds, at most, before it gives up telling the codec.
    public static let maxSniffedPackets = 64
    /// The payload types RFC 3551 leaves to the SDP (96-127): below, a type names a codec of its own.
    static let firstDynamicPayloadType: UInt8 = 96

    /// The depacketizer `format` calls for. Video parameter sets in the format that are not valid are left
    /// out (the stream's in-band sets serve); an audio format whose configuration cannot be read makes an
    /// unplayable depacketizer. Each problem is passed to `warn`.
    public init(format: MediaFormat, warn: (String) -> Void = { _ in }) {
        switch format {
        case .video(let video):
            self.init(video: video, warn: warn)
        case .audio(let audio):
            do throws(AudioError) {
                self.init(audio: try AudioDepacketizer(format: audio))
            } catch {
                warn("\(error)")
                self.init(payload: .unplayable(reason: "\(error)"))
            }
        case .data(let data):
            switch data.content {
            case .onvifMetadata(let gzip):
                self.init(
                    MetadataDepacketizer(
                        configuration: .init(payloadType: data.payloadType, clockRate: data.clockRate, gzip: gzip)))
            case .raw:
                self.init(
                    RawDepacketizer(configuration: .init(payloadType: data.payloadType, clockRate: data.clockRate)))
            }
        }
    }

    /// Wraps an ONVIF metadata depacketizer.
    public init(_ depacketizer: MetadataDepacketizer) {
        self.init(payload: .metadata)
        metadataDepacketizer = depacketizer
    }

    /// Wraps a raw depacketizer.
    public init(_ depacketizer: RawDepacketizer) {
        self.init(payload: .raw)
        rawDepacketizer = depacketizer
    }

    /// A depacketizer for `codec` with no SDP parameter sets (a capture whose codec is known).
    public init(codec: VideoCodec, configuration: DepacketizerConfiguration = DepacketizerConfiguration()) {
        self.init(payload: .video(codec))
        switch codec {
        case .h264, .h265: h26x = H26xDepacketizer(codec: codec, configuration: configuration)
        case .jpeg: jpeg = JPEGDepacketizer(configuration: .init(payloadType: configuration.payloadType))
        }
    }

    /// A depacketizer that tells H.264 from H.265 by the first payloads (``CodecSniffer``), for a capture
    /// with no SDP: until a payload decides, up to ``maxSniffedPackets`` packets are held. Static payload
    /// type 26 decides JPEG; another static type (below 96: PCMU, PCMA...) decides that the flow is not video; a flow
    /// whose
    /// payloads never decide is reported as such (``Payload/unplayable(reason:)``), not taken for either.
    public static func sniffing(configuration: DepacketizerConfiguration = DepacketizerConfiguration()) -> Depacketizer
    {
        var depacketizer = Depacketizer(payload: .sniffing)
        depacketizer.sniffed = (configuration, [])
        depacketizer.isSniffing = true
        return depacketizer
    }

    /// Wraps an H.264 or H.265 depacketizer.
    public init(_ depacketizer: H26xDepacketizer) {
        self.init(payload: .video(depacketizer.codec))
        h26x = depacketizer
    }

    /// Wraps an H.264 depacketizer of the former type.
    @available(*, deprecated, message: "wrap an H26xDepacketizer")
    public init(_ depacketizer: H264Depacketizer) { self.init(depacketizer.depacketizer) }

    /// Wraps an H.265 depacketizer of the former type.
    @available(*, deprecated, message: "wrap an H26xDepacketizer")
    public init(_ depacketizer: H265Depacketizer) { self.init(depacketizer.depacketizer) }

    /// Wraps a Motion JPEG depacketizer.
    public init(_ depacketizer: JPEGDepacketizer) {
        self.init(payload: .video(.jpeg))
        jpeg = depacketizer
    }

    /// Wraps an audio depacketizer.
    public init(audio depacketizer: AudioDepacketizer) {
        self.init(payload: .audio(depacketizer.format.codec))
        audioDepacketizer = depacketizer
    }

    private init(payload: Payload) {
        self.payload = payload
        active =
            switch payload {
            case .video(.h264), .video(.h265): .h26x
            case .video(.jpeg): .jpeg
            case .audio: .audio
            case .metadata: .metadata
            case .raw: .raw
            case .sniffing, .unplayable: .none
            }
    }

    private init(video format: VideoFormat, warn: (String) -> Void) {
        switch format.codec {
        case .jpeg:
            self.init(JPEGDepacketizer(configuration: .init(size: format.pictureSize, payloadType: format.payloadType)))
        case .h264, .h265:
            self.init(h26x: format, warn: warn)
        }
    }

    /// An H.264 or H.265 format's depacketizer: its SDP parameter sets, and de-interleaving as it says.
    private init(h26x format: VideoFormat, warn: (String) -> Void) {
        let sets = ParameterSets(format: format) { warn("\($0); the stream's own parameter sets serve instead") }
        // Mode 2 (H.264) and DON (H.265) need a de-interleaving buffer; a missing depth means the sender keeps
        // the order. The configuration's initializer bounds what the SDP says (depth, bytes).
        let interleaved = format.codec == .h264 ? format.packetizationMode == 2 : format.maxDONDiff > 0
        let configuration = DepacketizerConfiguration(
            deinterleavingDepth: interleaved ? max(1, format.deinterleavingDepth) : 0,
            deinterleavingBytes: format.deinterleavingBytes ?? DepacketizerConfiguration.defaultDeinterleavingBytes,
            payloadType: format.payloadType)
        self.init(
            H26xDepacketizer(
                codec: format.codec, configuration: configuration, parameterSets: sets,
                maxDONDiff: format.codec == .h265 ? format.maxDONDiff : 0))
    }

    /// The RTP clock rate of what it takes apart (90 kHz for video and while sniffing).
    public var clockRate: Int {
        audioDepacketizer?.format.clockRate ?? metadataDepacketizer?.configuration.clockRate
            ?? rawDepacketizer?.configuration.clockRate ?? Self.videoClockRate
    }

    /// Takes what a ``ReorderBuffer`` released: a packet is pushed, a loss noted, a discontinuity (the
    /// sender restarted) cuts off what was being assembled.
    public mutating func consume(_ output: consuming ReorderBuffer.Output) {
        if isSniffing { return sniff(output) }
        switch consume output {  // the packet moves out of the output: no copy of it, no retain of its bytes
        case .packet(let packet, _): push(packet)
        case .loss(let loss): noteLoss(loss.count)
        case .discontinuity: cutOff()
        }
    }

    /// Takes the next packet in sequence order.
    public mutating func push(_ packet: RTPPacket) {
        switch active {
        case .h26x: h26x?.push(packet)
        case .jpeg: jpeg?.push(packet)
        case .audio: audioDepacketizer?.push(packet)
        case .metadata: metadataDepacketizer?.push(packet)
        case .raw: rawDepacketizer?.push(packet)
        case .none: if case .unplayable = payload { droppedPackets += 1 }
        }
    }

    /// Tells it that `count` packets before the next one were lost.
    public mutating func noteLoss(_ count: Int) {
        h26x?.noteLoss(count)
        jpeg?.noteLoss(count)
        audioDepacketizer?.noteLoss(count)
        metadataDepacketizer?.noteLoss(count)
        rawDepacketizer?.noteLoss(count)
    }

    /// Ends the stream: completes what is still held (a sniffing depacketizer that never decided is
    /// reported unplayable, its packets dropped).
    public mutating func flush() {
        if isSniffing { giveUpSniffing(held: sniffed?.held.count ?? 0) }
        h26x?.flush()
        jpeg?.flush()
        audioDepacketizer?.flush()
        metadataDepacketizer?.flush()
        rawDepacketizer?.flush()
    }

    /// Ends the stream where it broke (a reconnect, a new source): completes what is held; a unit whose end
    /// never came counts a lost packet.
    public mutating func cutOff() {
        h26x?.cutOff()
        jpeg?.cutOff()
        audioDepacketizer?.cutOff()
        metadataDepacketizer?.cutOff()
        rawDepacketizer?.cutOff()
    }

    /// The oldest unit completed and not yet taken; nil until the next packet, loss or flush.
    @inlinable
    public mutating func next() -> MediaUnit? { next(track: 0, isDiscontinuity: false) }

    /// The next unit, naming `track` and flagged as the first after a break when `isDiscontinuity`: set
    /// before the unit is wrapped, where changing a wrapped unit would copy it out and back.
    @inlinable
    mutating func next(track: Int, isDiscontinuity: Bool) -> MediaUnit? {
        // Asked after every packet, and mostly nothing is ready: each answer is inlined into the caller.
        var picture: AccessUnit?
        switch active {
        case .h26x: picture = h26x?.nextAccessUnit()
        case .jpeg: picture = jpeg?.nextAccessUnit()
        case .audio:
            guard var frame = audioDepacketizer?.nextFrame() else { return nil }
            frame.track = track
            if isDiscontinuity { frame.isDiscontinuity = true }
            return .audio(frame)
        case .metadata:
            guard var document = metadataDepacketizer?.nextDocument() else { return nil }
            document.track = track
            if isDiscontinuity { document.isDiscontinuity = true }
            return .metadata(document)
        case .raw:
            guard var unit = rawDepacketizer?.nextUnit() else { return nil }
            unit.track = track
            if isDiscontinuity { unit.isDiscontinuity = true }
            return .raw(unit)
        case .none: return nil
        }
        guard var unit = picture else { return nil }
        unit.track = track
        if isDiscontinuity { unit.isDiscontinuity = true }
        return .video(unit)
    }

    /// The ONVIF metadata depacketizer, with its counters (nil for other payloads).
    public var metadata: MetadataDepacketizer? { metadataDepacketizer }

    /// The raw depacketizer, with its counters (nil for other payloads).
    public var raw: RawDepacketizer? { rawDepacketizer }

    /// The Motion JPEG depacketizer, with its counters (nil for other payloads).
    public var jpegDepacketizer: JPEGDepacketizer? { jpeg }

    /// The H.264 or H.265 parameter sets seen, from the SDP and in band (nil for other payloads).
    public var parameterSets: ParameterSets? { h26x?.parameterSets }

    /// The video codec it takes apart (nil for audio, and while sniffing).
    public var videoCodec: VideoCodec? {
        if case .video(let codec) = payload { codec } else { nil }
    }

    /// What the H.264 or H.265 depacketizer counted (malformed packets, dropped NAL units, quirks).
    public var videoStatistics: DepacketizerStatistics? { h26x?.statistics }

    /// The audio depacketizer, with its format, AAC configuration and counters (nil for other payloads).
    public var audio: AudioDepacketizer? { audioDepacketizer }

    /// The most recent payload it refused, and why.
    public var lastError: String? {
        h26x?.lastError.map { "\($0)" } ?? jpeg?.lastError.map { "\($0)" }
    }

    /// Packets it could not take apart (malformed payloads), whatever the payload.
    public var malformedPackets: Int {
        if let statistics = jpeg?.statistics { return statistics.malformedPackets + statistics.unsupportedPackets }
        return videoStatistics.map { $0.malformedPackets + $0.unsupportedPackets } ?? audio?.statistics.malformedPackets
            ?? 0
    }

    // MARK: Sniffing

    private mutating func sniff(_ output: consuming ReorderBuffer.Output) {
        guard var sniffed else { return }
        var codec: VideoCodec?
        if case .packet(let packet, _) = output {
            // A static payload type (RFC 3551: 0 PCMU, 8 PCMA, 26 JPEG...) names its codec: JPEG is taken; the
            // others are not video (H.264 and H.265 have dynamic types, 96-127), whatever their bytes look like.
            if packet.payloadType == VideoFormat.jpegPayloadType {
                codec = .jpeg
            } else if packet.payloadType < Self.firstDynamicPayloadType {
                return notVideo(
                    held: sniffed.held.count + 1,
                    reason: "payload type \(packet.payloadType) is static (RFC 3551: G.711, G.722...), not video")
            } else if let data = CodecSniffer.dataSignature(ofPayload: packet.payload) {
                // KLV, XML or gzip: a data track (its SDP says which), not a video stream.
                return notVideo(
                    held: sniffed.held.count + 1,
                    reason: "its payloads are \(data), not video: give the SDP to take it as data")
            } else {
                codec = CodecSniffer.codec(ofPayload: packet.payload)
            }
        }
        self.sniffed = nil  // held alone while it grows: no copy of the list
        sniffed.held.append(output)
        guard let codec else {
            guard sniffed.held.count < Self.maxSniffedPackets else { return giveUpSniffing(held: sniffed.held.count) }
            self.sniffed = sniffed
            return
        }
        self = Depacketizer(codec: codec, configuration: sniffed.configuration)
        for held in sniffed.held { consume(held) }
    }

    private mutating func giveUpSniffing(held: Int) {
        notVideo(
            held: held,
            reason: "its payloads (\(held) packets) never told H.264 from H.265, nor anything else: name the codec")
    }

    /// Ends sniffing: the flow is not video, for `reason`; the `held` packets are dropped.
    private mutating func notVideo(held: Int, reason: String) {
        sniffed = nil
        isSniffing = false
        droppedPackets += held
        payload = .unplayable(reason: reason)
        active = .none
    }
}

extension ParameterSets {
    /// The parameter sets of `format` (`sprop-parameter-sets`, `sprop-vps` / `-sps` / `-pps`): what its
    /// depacketizer starts from and its decoder is configured with. Entries that are not valid base64 or
    /// hold no parameter set are left out, each passed to `warn`.
    public init(format: VideoFormat, warn: (H26xError) -> Void = { _ in }) {
        self.init(codec: format.codec)
        for (name, value) in format.parameterSetAttributes {
            for problem in addValid(sdpParameter: name, value: value) { warn(problem) }
        }
    }
}
