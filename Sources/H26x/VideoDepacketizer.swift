import RTP

/// An H.264 or H.265 depacketizer, for code that handles both. (A struct with one of two in place,
/// rather than an enum: mutating an enum's payload copies it out, and its buffer with it.)
///
/// ``nextAccessUnit()`` is asked after every packet and mostly finds nothing: it is inlinable, so that the
/// path to that answer is exposed (`@usableFromInline`) down to the assembler's list of completed units.
public struct VideoDepacketizer: Sendable {
    @usableFromInline var h264: H264Depacketizer?
    @usableFromInline var h265: HEVCDepacketizer?
    /// The codec it takes apart.
    public let codec: VideoCodec

    /// A depacketizer for `codec` with no SDP parameter sets.
    public init(codec: VideoCodec, configuration: DepacketizerConfiguration = DepacketizerConfiguration()) {
        self.codec = codec
        switch codec {
        case .h264: h264 = H264Depacketizer(configuration: configuration)
        case .h265: h265 = HEVCDepacketizer(configuration: configuration)
        }
    }

    /// Wraps an H.264 depacketizer.
    public init(_ depacketizer: H264Depacketizer) {
        codec = .h264
        h264 = depacketizer
    }

    /// Wraps an H.265 depacketizer.
    public init(_ depacketizer: HEVCDepacketizer) {
        codec = .h265
        h265 = depacketizer
    }

    /// Takes the next packet in sequence order.
    public mutating func push(_ packet: RTPPacket) {
        h264?.push(packet)
        h265?.push(packet)
    }

    /// Tells the depacketizer that `count` packets before the next one were lost.
    public mutating func noteLoss(_ count: Int) {
        h264?.noteLoss(count)
        h265?.noteLoss(count)
    }

    /// Ends the stream: completes what is still held.
    public mutating func flush() {
        h264?.flush()
        h265?.flush()
    }

    /// Ends the stream where it broke: completes what is held, and a unit whose end never came counts a
    /// lost packet (see ``H264Depacketizer/cutOff()``).
    public mutating func cutOff() {
        h264?.cutOff()
        h265?.cutOff()
    }

    /// Takes what a ``ReorderBuffer`` released: a packet is pushed, a loss noted, a discontinuity (the
    /// sender restarted) cuts off what was being assembled.
    public mutating func consume(_ output: consuming ReorderBuffer.Output) {
        switch consume output {  // the packet moves out of the output: no copy of it, no retain of its bytes
        case .packet(let packet, _): push(packet)
        case .loss(let loss): noteLoss(loss.count)
        case .discontinuity: cutOff()
        }
    }

    /// The oldest access unit completed and not yet taken; nil until the next push, loss or flush.
    @inlinable
    public mutating func nextAccessUnit() -> AccessUnit? {
        switch codec {
        case .h264: h264?.nextAccessUnit()
        case .h265: h265?.nextAccessUnit()
        }
    }

    /// Every parameter set seen, from the SDP and in band.
    public var parameterSets: ParameterSets {
        h264?.parameterSets ?? h265?.parameterSets ?? ParameterSets(codec: codec)
    }

    /// The most recent payload this depacketizer refused, and why.
    public var lastError: H26xError? { h264?.lastError ?? h265?.lastError }

    /// What was counted so far.
    public var statistics: DepacketizerStatistics {
        h264?.statistics ?? h265?.statistics ?? DepacketizerStatistics()
    }
}
