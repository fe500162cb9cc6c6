import MediaPipeline
import RTP
import Testing

@testable import H26x

/// Builds RTP packets and runs depacketizers over them, for the unit tests.
enum Packets {
    static let sps: [UInt8] = [
        0x67, 0x42, 0xC0, 0x1E, 0xDA, 0x02, 0x80, 0xBF, 0xE5, 0x84, 0x00, 0x00, 0x03, 0x00, 0x04,
    ]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
    /// An IDR slice with first_mb_in_slice = 0 (first payload bit 1).
    static func idr(_ size: Int = 40, fill: UInt8 = 0xAB) -> [UInt8] {
        [0x65, 0x88] + [UInt8](repeating: fill, count: size - 2)
    }
    /// A non-IDR slice; `first` says whether it is the first slice of its picture.
    static func slice(_ size: Int = 20, first: Bool = true, fill: UInt8 = 0x11) -> [UInt8] {
        [0x41, first ? 0x9A : 0x40] + [UInt8](repeating: fill, count: size - 2)
    }

    static func rtp(_ seq: UInt16, ts: UInt32, marker: Bool = false, _ payload: [UInt8]) -> RTPPacket {
        RTPPacketBuilder(marker: marker, sequenceNumber: seq, timestamp: ts, ssrc: 1, payload: payload).packet()
    }

    static func stapA(_ nals: [[UInt8]]) -> [UInt8] {
        [0x78] + nals.flatMap { [UInt8($0.count >> 8), UInt8($0.count & 0xFF)] + $0 }
    }

    /// FU-A fragments of `nal`, `size` bytes of data each.
    static func fuA(_ nal: [UInt8], size: Int) -> [[UInt8]] {
        let header = nal[0]
        let body = Array(nal.dropFirst())
        let pieces = stride(from: 0, to: body.count, by: size).map { Array(body[$0..<min($0 + size, body.count)]) }
        return pieces.enumerated().map { i, piece in
            let fu = (i == 0 ? 0x80 : 0) | (i == pieces.count - 1 ? 0x40 : 0) | header & 0x1F
            return [header & 0xE0 | 28, fu] + piece
        }
    }

    struct Unit: Equatable {
        var nals: [[UInt8]]
        var timestamp: UInt64
        var keyframe: Bool
        var lost: Int
        var parameterSetsChanged: Bool
    }

    static func unit(_ au: AccessUnit) -> Unit {
        // Every access unit a depacketizer emits is already Annex B in its buffer, whatever path built it
        // (aggregation, fragments, quirks, dropped NAL units, split access units).
        let annexB: [UInt8] = au.nalUnits.flatMap { [0, 0, 0, 1] + Array($0.bytes) }
        #expect(au.nalUnits.annexB.map(Array.init) == annexB)
        return Unit(
            nals: au.nalUnits.map { Array($0.bytes) }, timestamp: au.timestamp, keyframe: au.isKeyframe,
            lost: au.lostPackets, parameterSetsChanged: au.parameterSetsChanged)
    }

    /// Pushes packets (nil = one lost packet) and flushes.
    static func run(_ depacketizer: inout Depacketizer, _ packets: [RTPPacket?]) -> [Unit] {
        var units: [Unit] = []
        for packet in packets {
            if let packet {
                depacketizer.push(packet)
                while let accessUnit = depacketizer.next()?.accessUnit { units.append(unit(accessUnit)) }
            } else {
                depacketizer.noteLoss(1)
                while let accessUnit = depacketizer.next()?.accessUnit { units.append(unit(accessUnit)) }
            }
        }
        depacketizer.flush()
        while let accessUnit = depacketizer.next()?.accessUnit { units.append(unit(accessUnit)) }
        return units
    }

    static func h264(_ packets: [RTPPacket?], configuration: DepacketizerConfiguration = .init()) -> (
        [Unit], DepacketizerStatistics
    ) {
        var d = Depacketizer(codec: .h264, configuration: configuration)
        let units = run(&d, packets)
        return (units, d.videoStatistics ?? DepacketizerStatistics())
    }
}
