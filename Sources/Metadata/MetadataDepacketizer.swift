import RTP

/// Turns an ONVIF metadata track's packets into ``MetadataDocument``s: each document's payloads up to the
/// packet with the marker bit (ONVIF Streaming Specification 5.2.1.1.3), gzip-inflated for
/// `vnd.onvif.metadata.gzip`, at most ``Configuration/maxDocumentSize`` bytes (compressed and inflated). A
/// document that may lack a piece (a loss in it or just before it), that ran past the bound or does not
/// inflate is dropped and counted, never handed on cut.
public struct MetadataDepacketizer: Sendable {
    /// Settings.
    public struct Configuration: Sendable, Hashable {
        public var payloadType: UInt8?
        /// The track's RTP clock rate (90000 as ONVIF says).
        public var clockRate: Int
        /// Whether documents come gzip-compressed (`vnd.onvif.metadata.gzip`).
        public var gzip: Bool
        /// The largest document, compressed and inflated (1 KiB to 64 MiB; 1 MiB by default).
        public var maxDocumentSize: Int

        public init(
            payloadType: UInt8? = nil, clockRate: Int = 90_000, gzip: Bool = false, maxDocumentSize: Int = 1 << 20
        ) {
            self.payloadType = payloadType
            self.clockRate = clockRate
            self.gzip = gzip
            self.maxDocumentSize = min(max(maxDocumentSize, 1 << 10), 64 << 20)
        }
    }

    /// What was counted so far.
    public struct Statistics: Sendable, Hashable {
        public var documents = 0
        /// Documents dropped: a loss in or just before them, past the size bound, or not inflating.
        public var droppedDocuments = 0
        public init() {}
    }

    public let configuration: Configuration
    public private(set) var statistics = Statistics()
    /// Why the last document was dropped.
    public private(set) var lastError: String?

    private var units: RawDepacketizer
    private var completed: [MetadataDocument] = []
    /// Packets lost since the last document handed on.
    private var lostSinceDocument = 0

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        units = RawDepacketizer(
            configuration: .init(
                payloadType: configuration.payloadType, clockRate: configuration.clockRate,
                maxUnitSize: configuration.maxDocumentSize))
        completed.reserveCapacity(2)
    }

    /// The joined units' counters.
    public var unitStatistics: RawDepacketizer.Statistics { units.statistics }

    public mutating func push(_ packet: RTPPacket) {
        units.push(packet)
        take()
    }

    public mutating func noteLoss(_ count: Int) { units.noteLoss(count) }

    public mutating func flush() {
        units.flush()
        take()
    }

    public mutating func cutOff() {
        units.cutOff()
        take()
    }

    /// The oldest document completed and not yet taken.
    public mutating func nextDocument() -> MetadataDocument? {
        completed.takeOldest()
    }

    private mutating func take() {
        while let unit = units.nextUnit() {
            lostSinceDocument += unit.lostPackets
            guard unit.lostPackets == 0 else {
                drop("a packet was lost in or just before it")
                continue
            }
            guard !unit.isTruncated else {
                drop(
                    "it ran past \(configuration.maxDocumentSize) bytes (MetadataDepacketizer.Configuration.maxDocumentSize)"
                )
                continue
            }
            var bytes = unit.bytes
            if configuration.gzip {
                switch Gzip.inflate(unit.bytes, limit: configuration.maxDocumentSize) {
                case .success(let inflated): bytes = inflated
                case .failure(let error):
                    drop("it does not inflate: \(error.reason)")
                    continue
                }
            }
            completed.append(
                MetadataDocument(
                    timestamp: unit.timestamp, clockRate: unit.clockRate, bytes: bytes, ssrc: unit.ssrc,
                    lostPacketsBefore: lostSinceDocument))
            statistics.documents += 1
            lostSinceDocument = 0
        }
    }

    private mutating func drop(_ reason: String) {
        statistics.droppedDocuments += 1
        lastError = "metadata document dropped: \(reason)"
    }
}
