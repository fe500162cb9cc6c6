import Foundation
import Metadata
import RTP
import Testing

/// The raw and metadata depacketizers' limits, on packets made here.
@Suite struct DataDepacketizerTests {
    static func packet(_ payload: [UInt8], sequence: UInt16, timestamp: UInt32 = 0, marker: Bool) -> RTPPacket {
        RTPPacketBuilder(
            marker: marker, payloadType: 107, sequenceNumber: sequence, timestamp: timestamp, ssrc: 3, payload: payload
        ).packet()
    }

    @Test func aRawUnitEndsAtTheMarkerOrANewTimestampAndCarriesItsLoss() throws {
        var depacketizer = RawDepacketizer()
        depacketizer.push(Self.packet([1, 2], sequence: 1, marker: false))
        depacketizer.noteLoss(2)
        depacketizer.push(Self.packet([3], sequence: 4, marker: true))
        let firstUnit = depacketizer.nextUnit()
        let first = try #require(firstUnit)
        #expect(first.bytes == [1, 2, 3] && first.lostPackets == 2 && first.endedByMarker)
        depacketizer.push(Self.packet([4], sequence: 5, timestamp: 100, marker: false))
        depacketizer.push(Self.packet([5], sequence: 6, timestamp: 200, marker: false))
        let secondUnit = depacketizer.nextUnit()
        let second = try #require(secondUnit)
        #expect(second.bytes == [4] && !second.endedByMarker && second.rtpTimestamp == 100)
        depacketizer.flush()
        #expect(depacketizer.nextUnit()?.bytes == [5])
    }

    @Test func aRawUnitIsCutAtItsLimit() throws {
        var depacketizer = RawDepacketizer(configuration: .init(maxUnitSize: 1024))
        depacketizer.push(Self.packet([UInt8](repeating: 1, count: 1000), sequence: 1, marker: false))
        depacketizer.push(Self.packet([UInt8](repeating: 2, count: 1000), sequence: 2, marker: true))
        let unit = depacketizer.nextUnit()
        #expect(unit?.bytes.count == 1024 && unit?.isTruncated == true)
        #expect(depacketizer.statistics.oversizedUnits == 1)
    }

    /// A gzip document that would inflate past the bound (a small payload may claim gigabytes), one that is
    /// not gzip, one cut short: each dropped with its reason.
    @Test(arguments: [
        ("bomb", "inflates past"), ("not gzip", "zlib refused"), ("cut", "ends early"),
    ])
    func aGzipDocumentThatCannotInflateWithinItsBoundIsDropped(kind: String, reason: String) throws {
        let big = Data(repeating: 0x41, count: 4 << 20)
        let compressed = try Self.gzip(kind == "cut" ? Data("<tt:MetadataStream/>".utf8) : big)
        let payload: [UInt8] =
            switch kind {
            case "bomb": [UInt8](compressed)
            case "cut": Array([UInt8](compressed).dropLast(12))
            default: Array("<not compressed/>".utf8)
            }
        var depacketizer = MetadataDepacketizer(configuration: .init(gzip: true, maxDocumentSize: 1 << 20))
        for (index, start) in stride(from: 0, to: payload.count, by: 1000).enumerated() {
            let end = min(start + 1000, payload.count)
            depacketizer.push(
                Self.packet(Array(payload[start..<end]), sequence: UInt16(index), marker: end == payload.count))
        }
        #expect(depacketizer.nextDocument() == nil)
        #expect(depacketizer.statistics.droppedDocuments == 1)
        #expect(depacketizer.lastError?.contains(reason) == true, "\(depacketizer.lastError ?? "")")
    }

    @Test func aGzipDocumentInflates() throws {
        let xml = Data("<?xml version=\"1.0\"?><tt:MetadataStream/>".utf8)
        var depacketizer = MetadataDepacketizer(configuration: .init(gzip: true))
        depacketizer.push(Self.packet([UInt8](try Self.gzip(xml)), sequence: 1, marker: true))
        #expect(depacketizer.nextDocument()?.bytes == [UInt8](xml))
    }

    /// gzip by the system's gzip program: an independent compressor.
    static func gzip(_ data: Data) throws -> Data {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString).xml")
        try data.write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-c", "-n", input.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return output
    }
}
