import Testing

@_spi(SansIO) @testable import RTP

@Suite struct RTPPacketTests {
    @Test func parsesEveryFixedHeaderField() throws {
        let bytes = RTPPacketBuilder(
            marker: true, payloadType: 96, sequenceNumber: 0xBEEF, timestamp: 0xDEAD_BEEF, ssrc: 0x0102_0304,
            payload: [1, 2, 3]
        ).bytes()
        let packet = try RTPPacket(bytes)
        #expect(packet.version == 2)
        #expect(packet.marker)
        #expect(packet.payloadType == 96)
        #expect(packet.sequenceNumber == 0xBEEF)
        #expect(packet.timestamp == 0xDEAD_BEEF)
        #expect(packet.ssrc == 0x0102_0304)
        #expect(packet.csrcCount == 0)
        #expect(packet.headerExtension == nil)
        #expect(Array(packet.payload) == [1, 2, 3])
    }

    @Test func readsCSRCsExtensionAndPadding() throws {
        let bytes = RTPPacketBuilder(
            csrcs: [7, 8], headerExtension: (profile: 0x1234, data: [9, 9, 9, 9, 9]), payload: [0xAA, 0xBB],
            paddingLength: 3
        ).bytes()
        let packet = try RTPPacket(bytes)
        #expect(packet.csrcs == [7, 8])
        #expect(packet.headerExtension?.profile == 0x1234)
        #expect(Array(packet.headerExtension?.data ?? []) == [9, 9, 9, 9, 9, 0, 0, 0])
        #expect(packet.headerExtension?.elementForm == nil)
        #expect(packet.hasPadding)
        #expect(packet.paddingLength == 3)
        #expect(Array(packet.payload) == [0xAA, 0xBB])
    }

    @Test func payloadIsAViewIntoTheOriginalBuffer() throws {
        let storage: [UInt8] = [0, 0] + RTPPacketBuilder(payload: [5, 6, 7]).bytes()
        let packet = try RTPPacket(storage[2...])
        #expect(packet.payload.startIndex == 2 + 12)
        #expect(Array(packet.payload) == [5, 6, 7])
    }

    @Test func readsOneByteExtensionElements() throws {
        // id 1 len 1 [0xA1], padding byte, id 2 len 3 [1 2 3], id 15 stops parsing.
        let data: [UInt8] = [0x10, 0xA1, 0x00, 0x22, 1, 2, 3, 0xF0, 0x55, 0x00]
        let packet = try RTPPacket(RTPPacketBuilder(headerExtension: (0xBEDE, data)).bytes())
        let ext = try #require(packet.headerExtension)
        #expect(ext.elementForm == .oneByte)
        let elements = Array(ext.elements)
        #expect(elements.map(\.id) == [1, 2])
        #expect(Array(elements[1].data) == [1, 2, 3])
        #expect(ext.element(id: 1).map(Array.init) == [0xA1])
        #expect(ext.elementsAreWellFormed)
    }

    @Test func readsTwoByteExtensionElements() throws {
        let data: [UInt8] = [0x05, 0x02, 0xAB, 0xCD, 0x00, 0x30, 0x00]
        let packet = try RTPPacket(RTPPacketBuilder(headerExtension: (0x1000, data)).bytes())
        let ext = try #require(packet.headerExtension)
        #expect(ext.elementForm == .twoByte)
        let elements = Array(ext.elements)
        #expect(elements.map(\.id) == [5, 0x30])
        #expect(Array(elements[0].data) == [0xAB, 0xCD])
        #expect(elements[1].data.isEmpty)
    }

    @Test func reportsAnExtensionElementRunningPastTheEnd() throws {
        let packet = try RTPPacket(RTPPacketBuilder(headerExtension: (0xBEDE, [0x1F, 1, 2])).bytes())
        let ext = try #require(packet.headerExtension)
        #expect(Array(ext.elements).isEmpty)
        #expect(!ext.elementsAreWellFormed)
    }

    @Test(arguments: [0, 1, 11])
    func rejectsPacketsShorterThanTheFixedHeader(length: Int) {
        let bytes = Array(RTPPacketBuilder().bytes().prefix(length))
        #expect(throws: RTPError(.tooShort, value: length, limit: 12)) { try RTPPacket(bytes) }
    }

    @Test func rejectsOtherVersions() {
        var bytes = RTPPacketBuilder().bytes()
        bytes[0] = 0x40
        let error = #expect(throws: RTPError.self) { try RTPPacket(bytes) }
        #expect(error?.code == .unsupportedVersion)
        #expect(error?.description.contains("version 1") == true)
    }

    @Test func rejectsACSRCListPastTheEnd() {
        var bytes = RTPPacketBuilder(payload: [1, 2, 3, 4]).bytes()
        bytes[0] |= 0x02  // two CSRCs need 8 bytes; only 4 follow
        #expect(throws: RTPError(.csrcListTruncated, value: 8, limit: 16)) { try RTPPacket(bytes) }
    }

    @Test func rejectsAnExtensionPastTheEnd() {
        var bytes = RTPPacketBuilder(headerExtension: (0xBEDE, [1, 2, 3, 4])).bytes()
        bytes[15] = 9  // claims 9 words
        let error = #expect(throws: RTPError.self) { try RTPPacket(bytes) }
        #expect(error?.code == .extensionTruncated)
        var headerOnly = RTPPacketBuilder().bytes()
        headerOnly[0] |= 0x10  // X set but no room for the extension header
        #expect(throws: RTPError.self) { try RTPPacket(headerOnly) }
    }

    @Test func rejectsZeroPadding() {
        var bytes = RTPPacketBuilder(payload: [1, 2, 0]).bytes()
        bytes[0] |= 0x20
        #expect(throws: RTPError(.invalidPadding, value: 0, limit: 3)) { try RTPPacket(bytes) }
    }

    @Test func rejectsPaddingLargerThanThePayload() {
        var bytes = RTPPacketBuilder(payload: [1, 2, 4]).bytes()
        bytes[0] |= 0x20
        #expect(throws: RTPError(.invalidPadding, value: 4, limit: 3)) { try RTPPacket(bytes) }
    }

    @Test func fixedHeaderReadsTruncatedPackets() throws {
        var bytes = RTPPacketBuilder(sequenceNumber: 42, ssrc: 9, payload: [1, 2, 9]).bytes()
        bytes[0] |= 0x20  // padding bit with a nonsense count: the full parser refuses, the header reader does not look
        let header = try RTPFixedHeader(bytes[...])
        #expect(header.sequenceNumber == 42)
        #expect(header.ssrc == 9)
        #expect(throws: RTPError.self) { try RTPPacket(bytes) }
    }

    @Test func tellsRTCPFromRTPByTheSecondByte() {
        #expect(RTPPacket.looksLikeRTCP([0x80, 200, 0, 6][...]))
        #expect(RTPPacket.looksLikeRTCP([0x80, 206][...]))
        #expect(!RTPPacket.looksLikeRTCP([0x80, 96][...]))
        #expect(!RTPPacket.looksLikeRTCP([0x80, 0xE0][...]))  // marker + PT 96
    }
}
