import H26x
import RTP

/// Turns in-order RTP packets of a Motion JPEG stream (RFC 2435) into JPEG pictures, each an ``AccessUnit``
/// of codec `.jpeg` whose ``AccessUnit/jpeg`` is a file a decoder or an image viewer opens.
///
/// The JPEG header the payload leaves out is rebuilt: quantization tables computed for Q 1-99 (the RFC's
/// appendix A), taken from the payload for Q 128-255 and cached per Q (a Q 128-254 picture may leave them
/// out), the standard Huffman tables, the restart interval of types 64 and 65. Fragments are put together
/// by their offset: a picture whose fragments do not all come (a loss, an offset that does not follow) is
/// dropped, never spliced, and counted (``Statistics/droppedPictures``): a picture handed on is whole (its
/// ``AccessUnit/lostPackets`` is 0).
///
/// ```swift
/// var depacketizer = JPEGDepacketizer(configuration: .init(size: (2560, 1440)))  // the SDP's a=x-dimensions
/// depacketizer.push(packet)
/// while let picture = depacketizer.nextAccessUnit() { try file.write(contentsOf: picture.jpeg!) }
/// ```
///
/// A picture taken and let go of before the next picture starts leaves its buffer to the next: in steady
/// state nothing is allocated.
public struct JPEGDepacketizer: Sendable {
    /// Settings.
    public struct Configuration: Sendable, Hashable {
        /// The largest side for ``size``: 16384 pixels (a JPEG frame header could say 65535; no camera sends
        /// such pictures, and a decoder asked for one refuses it or allocates gigabytes).
        public static let maxSide = 16_384
        /// The most pixels for ``size``: 16384 × 8192 (within what FFmpeg's decoders accept).
        public static let maxPixels = 16_384 * 8192
        /// The picture size the SDP announces (`a=x-dimensions`, `a=framesize`): used where the payload's
        /// 8-bit fields cannot say it (0, which RFC 2435 gives a side above 2040 pixels; or, from cameras that cut
        /// the size in blocks to 8 bits, that cut value). A payload that says another non-zero size is believed.
        public var size: (width: Int, height: Int)? {
            get { sizeValue.map { ($0.width, $0.height) } }
            set { sizeValue = newValue.map { Size(width: $0.width, height: $0.height) } }
        }
        /// A picture larger than this many bytes is dropped (counted as incomplete).
        public var maxPictureSize: Int
        /// Packets of other payload types are skipped (nil: every packet is taken).
        public var payloadType: UInt8?

        private struct Size: Hashable, Sendable {
            var width: Int
            var height: Int
        }
        private var sizeValue: Size?

        /// A size with a side outside 1 to ``maxSide`` or more than ``maxPixels`` is left out (the payload's own
        /// then serves); `maxPictureSize` is kept within 1 KiB to 64 MiB.
        public init(size: (width: Int, height: Int)? = nil, maxPictureSize: Int = 16 << 20, payloadType: UInt8? = nil) {
            self.maxPictureSize = min(max(maxPictureSize, 1 << 10), 64 << 20)
            self.payloadType = payloadType
            if let size, (1...Self.maxSide).contains(size.width), (1...Self.maxSide).contains(size.height),
                size.width * size.height <= Self.maxPixels
            {
                self.size = size
            }
        }
    }

    /// What was counted so far.
    public struct Statistics: Sendable, Hashable {
        /// Pictures completed and handed on.
        public var pictures = 0
        /// Pictures not handed on: a fragment was lost or did not follow the one before, the picture ran past
        /// ``Configuration/maxPictureSize``, or a payload of it was refused.
        public var droppedPictures = 0
        /// Packets whose headers did not read (see ``JPEGDepacketizer/lastError``).
        public var malformedPackets = 0
        /// Packets of a type, interlacing or precision this library does not take.
        public var unsupportedPackets = 0
        /// Packets of another payload type than ``Configuration/payloadType``, skipped.
        public var otherPayloadTypePackets = 0
        public init() {}
    }

    public let configuration: Configuration
    public private(set) var statistics = Statistics()
    /// The most recent payload or picture refused, and why.
    public private(set) var lastError: JPEGError?

    private var timestamps = TimestampExtender()
    /// The picture being received: its file so far (header, then the entropy-coded data).
    private var file: [UInt8] = []
    /// The extended timestamp of the picture being received (nil: none is).
    private var pictureTimestamp: UInt64?
    private var pictureSSRC: UInt32 = 0
    /// Where the next fragment's data must start, in the picture's entropy-coded data.
    private var expectedOffset = 0
    /// Whether the picture being received lost a fragment or was refused: it is dropped when it ends.
    private var damaged = false
    /// Why it was refused, when a payload of it was (else it lost a fragment).
    private var refusal: JPEGError?
    /// Pictures completed and not yet taken, oldest first: almost always none or one.
    private var completed: [AccessUnit] = []
    /// Tables by Q: computed for Q 1-99 when first needed, from the payload for Q 128-255.
    private var tables: [UInt8: QuantizationTables] = [:]

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        completed.reserveCapacity(2)
    }

    /// Takes the next packet in sequence order.
    public mutating func push(_ packet: RTPPacket) {
        if let expected = configuration.payloadType, packet.payloadType != expected {
            statistics.otherPayloadTypePackets += 1
            return
        }
        let timestamp = timestamps.extend(packet.timestamp)
        if let current = pictureTimestamp, current != timestamp {
            // A new picture began before the last one's marker: the rest of it was lost.
            drop("the picture at \(current) lost its last fragment")
        }
        handle(packet.payload, timestamp: timestamp, ssrc: packet.ssrc)
        if packet.marker, pictureTimestamp != nil { finish() }
    }

    /// Tells the depacketizer that `count` packets before the next one were lost: the picture they belonged to
    /// (the one being received, or the next if the lost ones began it) cannot be whole.
    public mutating func noteLoss(_ count: Int) {
        guard count > 0 else { return }
        if pictureTimestamp != nil { damaged = true }
    }

    /// Ends the stream: a picture still being received never got its last fragment and is dropped.
    public mutating func flush() {
        if pictureTimestamp != nil { drop("the stream ended before the picture's last fragment") }
    }

    /// Ends the stream where it broke (a reconnect, a new source): a picture being received is dropped.
    public mutating func cutOff() {
        if pictureTimestamp != nil { drop("the stream broke off before the picture's last fragment") }
        timestamps = TimestampExtender()
    }

    /// The oldest picture completed and not yet taken; nil until the next push.
    public mutating func nextAccessUnit() -> AccessUnit? {
        completed.takeOldest()
    }

    // MARK: Fragments

    private mutating func handle(_ payload: ArraySlice<UInt8>, timestamp: UInt64, ssrc: UInt32) {
        let header: RTPJPEGHeader
        do {
            header = try RTPJPEGHeader(payload)
        } catch {
            statistics.malformedPackets += 1
            lastError = error
            if pictureTimestamp != nil { refuse(error) }
            return
        }
        if header.fragmentOffset == 0 {
            if pictureTimestamp != nil { drop("a picture began again before its last fragment") }
            begin(header, payload: payload, timestamp: timestamp, ssrc: ssrc)
        } else if pictureTimestamp == nil {
            // The first fragment was lost (or refused): nothing to put this one after. Counted once, with the
            // picture's start.
            pictureTimestamp = timestamp
            damaged = true
            expectedOffset = header.fragmentOffset
        }
        guard pictureTimestamp != nil, !damaged else { return }
        guard header.fragmentOffset == expectedOffset else {
            damaged = true
            return
        }
        let data = payload[header.dataStart...]
        guard file.count + data.count <= configuration.maxPictureSize else {
            refuse(
                JPEGError(
                    .incompletePicture,
                    "a picture ran past \(configuration.maxPictureSize) bytes (JPEGDepacketizer.Configuration.maxPictureSize)"
                ))
            return
        }
        file.append(contentsOf: data)
        expectedOffset += data.count
    }

    /// Starts a picture at its first fragment: its file begins with the header rebuilt from `header`.
    private mutating func begin(_ header: RTPJPEGHeader, payload: ArraySlice<UInt8>, timestamp: UInt64, ssrc: UInt32) {
        pictureTimestamp = timestamp
        pictureSSRC = ssrc
        expectedOffset = 0
        damaged = false
        refusal = nil
        // The picture completed last shares this storage until it is taken and let go of, as most consumers
        // do before the next packet: then emptying it keeps the storage; else a new buffer is made.
        file.removeAll(keepingCapacity: true)
        do {
            let picture = try self.picture(header, payload: payload)
            JPEGFileHeader.write(picture, into: &file)
        } catch {
            if error.code == .unsupportedPayload {
                statistics.unsupportedPackets += 1
            } else {
                statistics.malformedPackets += 1
            }
            refuse(error)
        }
    }

    /// What the header of the picture says, with the tables and size resolved.
    private mutating func picture(_ header: RTPJPEGHeader, payload: ArraySlice<UInt8>) throws(JPEGError)
        -> JPEGFileHeader.Picture
    {
        guard header.typeSpecific == 0 else {
            throw JPEGError(
                .unsupportedPayload,
                "type-specific \(header.typeSpecific): the pictures are interlaced fields, which this library does not join"
            )
        }
        guard header.type < 128, header.baseType <= 1 else {
            throw JPEGError(
                .unsupportedPayload,
                "type \(header.type): RFC 2435 defines types 0, 1 (and 64, 65 with restart markers), not this one")
        }
        let tables = try self.tables(header, payload: payload)
        guard let count = tables.count else {
            throw JPEGError(
                .malformedPayload,
                "\(tables.bytes.count) bytes of quantization tables at precision \(tables.precision) are not whole tables"
            )
        }
        let configured = configuration.size
        let width = try Self.side(blocks: header.widthBlocks, configured: configured?.width, name: "width")
        let height = try Self.side(blocks: header.heightBlocks, configured: configured?.height, name: "height")
        return JPEGFileHeader.Picture(
            baseType: header.baseType, width: width, height: height, tables: tables, tableCount: count,
            restartInterval: header.restartInterval)
    }

    /// A side of the picture: the configured one where the 8-bit field cannot say it (0, or a side above 2040
    /// cut to 8 bits), else the field's: an SDP does not override what the payload says.
    private static func side(blocks: Int, configured: Int?, name: String) throws(JPEGError) -> Int {
        if let configured, blocks == 0 || (configured > 255 * 8 && blocks == (configured / 8) & 0xFF) {
            return configured
        }
        guard blocks > 0 else {
            throw JPEGError(
                .malformedPayload,
                "the picture's \(name) is 0 and the SDP announced none (a=x-dimensions or a=framesize): give the size in the configuration"
            )
        }
        return blocks * 8
    }

    /// The tables for the picture's Q: computed, from the payload (kept for the Q), or cached.
    private mutating func tables(_ header: RTPJPEGHeader, payload: ArraySlice<UInt8>) throws(JPEGError)
        -> QuantizationTables
    {
        let q = header.q
        if q < 128 {
            if let known = tables[q] { return known }
            let computed = QuantizationTables.rfc2435(q: q)
            tables[q] = computed
            return computed
        }
        if let range = header.tables, !range.isEmpty {
            let inBand = payload[range]
            // Compared before stored: a sender whose tables do not change costs no copy.
            if let known = tables[q], known.precision == header.tablePrecision, known.bytes.elementsEqual(inBand) {
                return known
            }
            let received = QuantizationTables(precision: header.tablePrecision, bytes: Array(inBand))
            tables[q] = received
            return received
        }
        guard q != 255, let cached = tables[q] else {
            throw JPEGError(
                .malformedPayload,
                q == 255
                    ? "Q 255 without quantization tables (RFC 2435: they come with every such picture)"
                    : "Q \(q) without quantization tables, and none came before for it")
        }
        return cached
    }

    // MARK: Pictures

    /// Completes the picture being received: handed on when whole, dropped when damaged.
    private mutating func finish() {
        guard let timestamp = pictureTimestamp else { return }
        if damaged {
            drop("a fragment of the picture was lost or did not follow the one before")
            return
        }
        // A sender's payloads end with the entropy-coded data; the EOI marker closes the file.
        if !(file.count >= 2 && file[file.count - 2] == 0xFF && file[file.count - 1] == 0xD9) {
            file.append(0xFF)
            file.append(0xD9)
        }
        completed.append(AccessUnit(jpeg: file, timestamp: timestamp, ssrc: pictureSSRC))
        statistics.pictures += 1
        pictureTimestamp = nil
    }

    /// Marks the picture being received as one to drop, for `error`.
    private mutating func refuse(_ error: JPEGError) {
        damaged = true
        if refusal == nil { refusal = error }
    }

    /// Drops the picture being received: for the reason it was refused, else for `reason`.
    private mutating func drop(_ reason: String) {
        statistics.droppedPictures += 1
        lastError = refusal ?? JPEGError(.incompletePicture, "picture dropped: \(reason)")
        refusal = nil
        pictureTimestamp = nil
        damaged = false
        file.removeAll(keepingCapacity: true)
    }
}
