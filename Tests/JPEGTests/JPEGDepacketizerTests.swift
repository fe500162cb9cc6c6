import H26x
import JPEG
import RTP
import Testing

/// The depacketizer's limits and refusals, on packets made here: each failure a sender can cause is counted
/// with a reason, and a picture is whole or dropped.
@Suite struct JPEGDepacketizerTests {
    /// An RTP JPEG payload: the main header, the restart header for types 64-127, the table header (Q >= 128,
    /// offset 0) when `tables` is given, then `data`.
    static func payload(
        offset: Int = 0, type: UInt8 = 1, q: UInt8 = 50, width: UInt8 = 2, height: UInt8 = 2, typeSpecific: UInt8 = 0,
        restartInterval: UInt16? = nil, tables: (precision: UInt8, bytes: [UInt8])? = nil, data: [UInt8] = [1, 2, 3]
    ) -> [UInt8] {
        var bytes: [UInt8] = [
            typeSpecific, UInt8(offset >> 16 & 0xFF), UInt8(offset >> 8 & 0xFF), UInt8(offset & 0xFF), type, q, width,
            height,
        ]
        if let restartInterval { bytes += [UInt8(restartInterval >> 8), UInt8(restartInterval & 0xFF), 0xFF, 0xFF] }
        if let tables {
            bytes +=
                [0, tables.precision, UInt8(tables.bytes.count >> 8), UInt8(tables.bytes.count & 0xFF)] + tables.bytes
        }
        return bytes + data
    }

    static func packet(_ payload: [UInt8], sequence: UInt16 = 1, timestamp: UInt32 = 9000, marker: Bool = true)
        -> RTPPacket
    {
        RTPPacketBuilder(
            marker: marker, payloadType: 26, sequenceNumber: sequence, timestamp: timestamp, ssrc: 5, payload: payload
        ).packet()
    }

    /// The marker segments of a JPEG file up to SOS: (marker, segment bytes after the length).
    static func segments(_ file: ArraySlice<UInt8>) -> [(UInt8, ArraySlice<UInt8>)] {
        var result: [(UInt8, ArraySlice<UInt8>)] = []
        var index = file.startIndex + 2
        while index + 4 <= file.endIndex, file[index] == 0xFF {
            let marker = file[index + 1]
            let length = Int(file[index + 2]) << 8 | Int(file[index + 3])
            result.append((marker, file[(index + 4)..<min(file.endIndex, index + 2 + length)]))
            if marker == 0xDA { break }
            index += 2 + length
        }
        return result
    }

    @Test func aPictureOfTwoFragmentsIsAFileWithTheRebuiltHeader() throws {
        var depacketizer = JPEGDepacketizer()
        depacketizer.push(
            Self.packet(Self.payload(type: 65, restartInterval: 4, data: [1, 2, 3]), sequence: 1, marker: false))
        #expect(depacketizer.nextAccessUnit() == nil)
        depacketizer.push(
            Self.packet(Self.payload(offset: 3, type: 65, restartInterval: 4, data: [4, 5]), sequence: 2))
        let next = depacketizer.nextAccessUnit()
        let unit = try #require(next)
        let file = try #require(unit.jpeg)
        #expect(unit.codec == .jpeg && unit.isKeyframe && unit.ssrc == 5 && unit.rtpTimestamp == 9000)
        #expect(file.prefix(2).elementsEqual([0xFF, 0xD8]))
        #expect(file.suffix(7).elementsEqual([1, 2, 3, 4, 5, 0xFF, 0xD9]))
        let markers = Self.segments(file).map(\.0)
        #expect(markers == [0xDB, 0xC0, 0xC4, 0xDD, 0xDA])
        // The frame header: 16x16 (2 blocks each), 4:2:0 luminance sampling, chrominance on table 1.
        let frame = try #require(Self.segments(file).first { $0.0 == 0xC0 }?.1)
        #expect(Array(frame) == [8, 0, 16, 0, 16, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1])
        let restart = try #require(Self.segments(file).first { $0.0 == 0xDD }?.1)
        #expect(Array(restart) == [0, 4])
        // Q=50: the RFC's tables are the JPEG standard's example tables themselves (scale 100), zig-zag order.
        let tables = try #require(Self.segments(file).first { $0.0 == 0xDB }?.1)
        #expect(Array(tables.prefix(7)) == [0, 16, 11, 12, 14, 12, 10])
        #expect(tables[tables.startIndex + 65] == 1 && tables[tables.startIndex + 66] == 17)
    }

    /// RFC 2435 appendix A: Q below 50 scales the tables up (5000/Q percent), clamped to 1-255.
    @Test func tablesForLowQAreScaledAndClamped() throws {
        var depacketizer = JPEGDepacketizer()
        depacketizer.push(Self.packet(Self.payload(q: 1)))
        let next = depacketizer.nextAccessUnit()
        let file = try #require(next?.jpeg)
        let tables = try #require(Self.segments(file).first { $0.0 == 0xDB }?.1)
        // 16 * 5000 / 100 = 800, clamped to 255; every entry is at least 17 * 50 > 255.
        #expect(tables.dropFirst().prefix(64).allSatisfy { $0 == 255 })
    }

    /// One 64-byte table in band (as FFmpeg's muxer may send): every component uses it.
    @Test func aSingleTableServesEveryComponent() throws {
        var depacketizer = JPEGDepacketizer()
        let table = [UInt8](repeating: 7, count: 64)
        depacketizer.push(Self.packet(Self.payload(q: 255, tables: (0, table))))
        let next = depacketizer.nextAccessUnit()
        let file = try #require(next?.jpeg)
        let frame = try #require(Self.segments(file).first { $0.0 == 0xC0 }?.1)
        #expect(Array(frame.suffix(9)) == [1, 0x22, 0, 2, 0x11, 0, 3, 0x11, 0])
        #expect(Array(try #require(Self.segments(file).first { $0.0 == 0xDB }?.1)) == [0] + table)
    }

    @Test func aMissingMiddleFragmentDropsThePictureAndTheNextOneComes() throws {
        var depacketizer = JPEGDepacketizer()
        depacketizer.push(Self.packet(Self.payload(data: [1, 2, 3]), sequence: 1, marker: false))
        depacketizer.noteLoss(1)
        depacketizer.push(Self.packet(Self.payload(offset: 6, data: [7]), sequence: 3))
        #expect(depacketizer.nextAccessUnit() == nil)
        depacketizer.push(Self.packet(Self.payload(data: [9]), sequence: 4, timestamp: 12000))
        #expect(depacketizer.nextAccessUnit()?.rtpTimestamp == 12000)
        #expect(depacketizer.statistics.droppedPictures == 1 && depacketizer.statistics.pictures == 1)
        #expect(depacketizer.lastError?.code == .incompletePicture)
    }

    /// Offsets that do not follow (a sender's bug, or a loss the reorder buffer did not see): dropped.
    @Test func aFragmentWhoseOffsetDoesNotFollowDropsThePicture() {
        var depacketizer = JPEGDepacketizer()
        depacketizer.push(Self.packet(Self.payload(data: [1, 2, 3]), sequence: 1, marker: false))
        depacketizer.push(Self.packet(Self.payload(offset: 2, data: [3, 4]), sequence: 2))
        #expect(depacketizer.nextAccessUnit() == nil)
        #expect(depacketizer.statistics.droppedPictures == 1)
    }

    /// The first fragment lost: the rest cannot be placed.
    @Test func aPictureWithoutItsFirstFragmentIsDropped() {
        var depacketizer = JPEGDepacketizer()
        depacketizer.push(Self.packet(Self.payload(offset: 100, data: [1]), sequence: 2))
        #expect(depacketizer.nextAccessUnit() == nil)
        #expect(depacketizer.statistics.droppedPictures == 1)
    }

    /// A new timestamp before the marker: the picture before lost its end.
    @Test func aPictureWhoseMarkerNeverCameIsDroppedAtTheNextTimestamp() {
        var depacketizer = JPEGDepacketizer()
        depacketizer.push(Self.packet(Self.payload(data: [1]), sequence: 1, marker: false))
        depacketizer.push(Self.packet(Self.payload(data: [2]), sequence: 2, timestamp: 12000))
        #expect(depacketizer.nextAccessUnit()?.rtpTimestamp == 12000)
        #expect(depacketizer.nextAccessUnit() == nil)
        #expect(depacketizer.statistics.droppedPictures == 1)
        depacketizer.push(Self.packet(Self.payload(data: [3]), sequence: 3, timestamp: 15000, marker: false))
        depacketizer.flush()
        #expect(depacketizer.nextAccessUnit() == nil)
        #expect(depacketizer.statistics.droppedPictures == 2)
    }

    @Test func aPictureLargerThanTheLimitIsDropped() {
        var depacketizer = JPEGDepacketizer(configuration: .init(maxPictureSize: 2048))
        depacketizer.push(
            Self.packet(Self.payload(data: [UInt8](repeating: 1, count: 1000)), sequence: 1, marker: false))
        depacketizer.push(
            Self.packet(Self.payload(offset: 1000, data: [UInt8](repeating: 1, count: 1000)), sequence: 2))
        #expect(depacketizer.nextAccessUnit() == nil)
        #expect(depacketizer.statistics.droppedPictures == 1)
        #expect(depacketizer.lastError?.reason.contains("maxPictureSize") == true)
    }

    /// Each refusal: counted, with a reason, no picture.
    @Test(
        arguments: [
            ([UInt8](repeating: 0, count: 5), "shorter than the 8-byte"),
            (payload(type: 65).prefix(10).map { $0 }, "restart marker header"),
            (payload(q: 255, data: []).prefix(9).map { $0 }, "quantization table header"),
            (payload(q: 255, tables: (0, [UInt8](repeating: 1, count: 64))).prefix(30).map { $0 }, "runs past"),
            (payload(q: 255, tables: (0, [UInt8](repeating: 1, count: 50))), "not whole tables"),
            (payload(q: 255, tables: (0, [])), "Q 255 without quantization tables"),
            (payload(q: 200, tables: (0, [])), "none came before"),
            (payload(type: 5), "type 5"),
            (payload(typeSpecific: 1), "interlaced"),
            (payload(width: 0), "a=x-dimensions"),
        ] as [([UInt8], String)])
    func aPayloadThatCannotBeAPictureIsRefusedWithAReason(payload: [UInt8], reason: String) {
        var depacketizer = JPEGDepacketizer()
        depacketizer.push(Self.packet(payload))
        #expect(depacketizer.nextAccessUnit() == nil)
        #expect(
            depacketizer.lastError?.reason.contains(reason) == true, "\(String(describing: depacketizer.lastError))")
        let statistics = depacketizer.statistics
        #expect(statistics.malformedPackets + statistics.unsupportedPackets == 1)
    }

    /// Cached tables for Q 128-254: sent once, used by the pictures that leave them out.
    @Test func tablesOfQ128To254AreCachedPerQ() throws {
        var depacketizer = JPEGDepacketizer()
        let tables = [UInt8](repeating: 3, count: 128)
        depacketizer.push(Self.packet(Self.payload(q: 130, tables: (0, tables)), sequence: 1))
        depacketizer.push(Self.packet(Self.payload(q: 130, tables: (0, [])), sequence: 2, timestamp: 12000))
        let firstUnit = depacketizer.nextAccessUnit()
        let secondUnit = depacketizer.nextAccessUnit()
        let first = try #require(firstUnit?.jpeg)
        let second = try #require(secondUnit?.jpeg)
        #expect(Array(first.dropLast(5)) == Array(second.dropLast(5)))
        // Another Q has no tables of its own yet.
        depacketizer.push(Self.packet(Self.payload(q: 131, tables: (0, [])), sequence: 3, timestamp: 15000))
        #expect(depacketizer.nextAccessUnit() == nil)
    }

    @Test func packetsOfAnotherPayloadTypeAreSkipped() {
        var depacketizer = JPEGDepacketizer(configuration: .init(payloadType: 96))
        depacketizer.push(Self.packet(Self.payload()))
        #expect(depacketizer.nextAccessUnit() == nil)
        #expect(depacketizer.statistics.otherPayloadTypePackets == 1)
    }

    /// The size in a picture's frame header (height, width), for a payload of `width` × `height` blocks.
    static func frameSize(_ configuration: JPEGDepacketizer.Configuration, width: UInt8, height: UInt8) throws
        -> [UInt8]
    {
        var depacketizer = JPEGDepacketizer(configuration: configuration)
        depacketizer.push(Self.packet(Self.payload(width: width, height: height)))
        let file = try #require(depacketizer.nextAccessUnit()?.jpeg)
        let frame = try #require(Self.segments(file).first { $0.0 == 0xC0 }?.1)
        return Array(frame.dropFirst().prefix(4))
    }

    /// The configured size serves where the header cannot say it: 0, or above 2040 a side in blocks cut to 8 bits
    /// (4000 / 8 = 500 is 244; 3000 / 8 = 375 is 119).
    @Test func theConfiguredSizeServesWhereTheHeaderCannotSayIt() throws {
        #expect(try Self.frameSize(.init(size: (4000, 3000)), width: 244, height: 119) == [0x0B, 0xB8, 0x0F, 0xA0])
        #expect(try Self.frameSize(.init(size: (4000, 3000)), width: 0, height: 0) == [0x0B, 0xB8, 0x0F, 0xA0])
    }

    /// A size the payload says is believed over the SDP's (an SDP of 2560 × 1440 over 640 × 480 pictures gave
    /// pictures of the SDP's size); sizes beyond the bounds are left out (an SDP of 65535 × 65535 made pictures
    /// no decoder takes, and an MP4 entry of 0 × 0).
    @Test func thePayloadsSizeWinsAndHugeSizesAreLeftOut() throws {
        #expect(try Self.frameSize(.init(size: (2560, 1440)), width: 80, height: 60) == [0x01, 0xE0, 0x02, 0x80])
        #expect(try Self.frameSize(.init(size: (65_535, 65_535)), width: 80, height: 60) == [0x01, 0xE0, 0x02, 0x80])
        #expect(JPEGDepacketizer.Configuration(size: (65_535, 65_535)).size == nil)
        #expect(JPEGDepacketizer.Configuration(size: (16_384, 16_384)).size == nil)
        #expect(JPEGDepacketizer.Configuration(size: (16_384, 8192)).size! == (16_384, 8192))
        #expect(JPEGDepacketizer.Configuration(size: (70_000, 10)).size == nil)
        #expect(JPEGDepacketizer.Configuration(size: (0, 10)).size == nil)
        // With none (or one left out), a side of 0 is an error that says what to give.
        var depacketizer = JPEGDepacketizer(configuration: .init(size: (65_535, 65_535)))
        depacketizer.push(Self.packet(Self.payload(width: 0, height: 60)))
        #expect(depacketizer.nextAccessUnit() == nil)
        #expect(depacketizer.lastError.map { "\($0)".contains("a=x-dimensions") } == true)
    }
}
