import RTP

/// An H.264 or H.265 depacketizer, for code that handles both. (A struct with one of two in place,
/// rather than an enum: mutating an enum's payload copies it out, and its buffer with it.)
public struct VideoDepacketizer: Sendable {
    private var h264: H264Depacketizer?
    private var h265: HEVCDepacketizer?
    public let codec: VideoCodec

    /// A depacketizer for `codec` with no SDP parameter sets.
    public init(codec: VideoCodec, configuration: DepacketizerConfiguration = DepacketizerConfiguration()) {
        self.codec = codec
        switch codec {
        case .h264: h264 = H264Depacketizer(configuration: configuration)
        case .h265: h265 = HEVCDepacketizer(configuration: configuration)
        }
    }

    public init(_ depacketizer: H264Depacketizer) {
        codec = .h264
        h264 = depacketizer
    }

    public init(_ depacketizer: HEVCDepacketizer) {
        codec = .h265
        h265 = depacketizer
    }

    public mutating func push(_ packet: RTPPacket, emit: (AccessUnit) -> Void) {
        h264?.push(packet, emit: emit)
        h265?.push(packet, emit: emit)
    }

    public mutating func noteLoss(_ count: Int, emit: (AccessUnit) -> Void) {
        h264?.noteLoss(count, emit: emit)
        h265?.noteLoss(count, emit: emit)
    }

    public mutating func flush(emit: (AccessUnit) -> Void) {
        h264?.flush(emit: emit)
        h265?.flush(emit: emit)
    }

    /// Takes what a ``ReorderBuffer`` released: a packet is pushed, a loss noted, a discontinuity (the
    /// sender restarted) flushes what was being assembled.
    public mutating func consume(_ output: consuming ReorderBuffer.Output, emit: (AccessUnit) -> Void) {
        switch consume output {  // the packet moves out of the output: no copy of it, no retain of its bytes
        case .packet(let packet, _): push(packet, emit: emit)
        case .loss(let loss): noteLoss(loss.count, emit: emit)
        case .discontinuity: flush(emit: emit)
        }
    }

    public var parameterSets: ParameterSets {
        h264?.parameterSets ?? h265?.parameterSets ?? ParameterSets(codec: codec)
    }

    /// The most recent payload this depacketizer refused, and why.
    public var lastError: H26xError? { h264?.lastError ?? h265?.lastError }

    public var statistics: DepacketizerStatistics {
        h264?.statistics ?? h265?.statistics ?? DepacketizerStatistics()
    }
}
