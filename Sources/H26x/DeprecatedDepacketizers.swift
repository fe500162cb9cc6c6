import RTP

/// The H.264 depacketizer's former type: ``H26xDepacketizer`` with `codec: .h264`.
@available(*, deprecated, message: "use H26xDepacketizer(codec: .h264, ...)")
public struct H264Depacketizer: Sendable {
    public var depacketizer: H26xDepacketizer

    public init(
        configuration: DepacketizerConfiguration = DepacketizerConfiguration(),
        parameterSets: ParameterSets = ParameterSets(codec: .h264)
    ) {
        depacketizer = H26xDepacketizer(codec: .h264, configuration: configuration, parameterSets: parameterSets)
    }

    public var statistics: DepacketizerStatistics { depacketizer.statistics }
    public var parameterSets: ParameterSets { depacketizer.parameterSets }
    public var lastError: H26xError? { depacketizer.lastError }
    public mutating func noteLoss(_ count: Int) { depacketizer.noteLoss(count) }
    public mutating func flush() { depacketizer.flush() }
    public mutating func cutOff() { depacketizer.cutOff() }
    public mutating func nextAccessUnit() -> AccessUnit? { depacketizer.nextAccessUnit() }
    public mutating func push(_ packet: RTPPacket) { depacketizer.push(packet) }
}

/// The H.265 depacketizer's former type: ``H26xDepacketizer`` with `codec: .h265`.
@available(*, deprecated, message: "use H26xDepacketizer(codec: .h265, ...)")
public struct H265Depacketizer: Sendable {
    public var depacketizer: H26xDepacketizer

    public init(
        configuration: DepacketizerConfiguration = DepacketizerConfiguration(),
        parameterSets: ParameterSets = ParameterSets(codec: .h265), maxDONDiff: Int = 0
    ) {
        depacketizer = H26xDepacketizer(
            codec: .h265, configuration: configuration, parameterSets: parameterSets, maxDONDiff: maxDONDiff)
    }

    public var usesDecodingOrderNumbers: Bool { depacketizer.usesDecodingOrderNumbers }
    public var statistics: DepacketizerStatistics { depacketizer.statistics }
    public var parameterSets: ParameterSets { depacketizer.parameterSets }
    public var lastError: H26xError? { depacketizer.lastError }
    public mutating func noteLoss(_ count: Int) { depacketizer.noteLoss(count) }
    public mutating func flush() { depacketizer.flush() }
    public mutating func cutOff() { depacketizer.cutOff() }
    public mutating func nextAccessUnit() -> AccessUnit? { depacketizer.nextAccessUnit() }
    public mutating func push(_ packet: RTPPacket) { depacketizer.push(packet) }
}

/// The H.265 depacketizer's older name.
@available(*, deprecated, message: "use H26xDepacketizer(codec: .h265, ...)")
public typealias HEVCDepacketizer = H265Depacketizer
