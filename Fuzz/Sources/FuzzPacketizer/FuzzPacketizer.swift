import H26x
import JPEG
import RTP

/// Packetizers fed what an application might push. The first byte picks the packetizer and its payload size:
/// H.264 or H.265 access units (the rest of the input split at 00 00 01 into NAL units) are packetized without
/// parameter sets put in, then taken apart again by the depacketizer; a JPEG file (the rest of the input) is
/// packetized, then taken apart again.
///
/// Checks, besides crashes: no payload past the size bound; the marker on the last payload alone; H.264 and H.265
/// NAL units (of two bytes or more) come back as they went; a JPEG picture sent comes back whole.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPacketizer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 2 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let choice = bytes[0]
    let maxPayload = 64 + Int(bytes[1]) * 8
    let rest = Array(bytes[2...])
    var payloads: [(bytes: [UInt8], isLast: Bool)] = []
    switch choice % 3 {
    case 0, 1:
        let codec: VideoCodec = choice % 3 == 0 ? .h264 : .h265
        let unit = AccessUnit(codec: codec, timestamp: 3000, annexB: [0, 0, 1] + rest)
        var packetizer = H26xPacketizer(codec: codec, maxPayloadSize: maxPayload, insertsParameterSets: false)
        packetizer.packetize(unit) { payload, isLast in payloads.append((Array(payload), isLast)) }
        check(payloads, maxPayload: max(maxPayload, H26xPacketizer.minPayloadSize))
        let headerLength = codec == .h265 ? 2 : 1
        // What an encoder makes: no forbidden bit, none of the types the payload format keeps for itself.
        func encoderMakes(_ nal: [UInt8]) -> Bool {
            guard nal.count > headerLength, nal[0] & 0x80 == 0 else { return false }
            let type = codec == .h265 ? (nal[0] >> 1) & 0x3F : nal[0] & 0x1F
            return codec == .h265 ? type < 48 : (1...23).contains(type)
        }
        let sent = unit.nalUnits.map { Array($0.bytes) }.filter(encoderMakes)
        // The depacketizers hand on pictures: an access unit without a slice (parameter sets alone) is not one.
        let hasSlice = sent.contains { codec == .h265 ? ($0[0] >> 1) & 0x3F < 32 : (1...5).contains($0[0] & 0x1F) }
        guard hasSlice else { return 0 }
        var depacketizer = H26xDepacketizer(codec: codec)
        var received: [[UInt8]] = []
        for (index, payload) in payloads.enumerated() {
            let packet = RTPPacketBuilder(
                marker: payload.isLast, payloadType: 96, sequenceNumber: UInt16(index), timestamp: 3000, ssrc: 1,
                payload: payload.bytes
            ).packet()
            depacketizer.push(packet)
            while let unit = depacketizer.nextAccessUnit() { received += unit.nalUnits.map { Array($0.bytes) } }
        }
        precondition(received == sent, "NAL units changed on their way: \(received.count) of \(sent.count)")
    default:
        let unit = AccessUnit(jpeg: rest, timestamp: 0, ssrc: 1)
        var packetizer = JPEGPacketizer(maxPayloadSize: maxPayload)
        packetizer.packetize(unit) { payload, isLast in payloads.append((Array(payload), isLast)) }
        check(payloads, maxPayload: max(maxPayload, JPEGPacketizer.minPayloadSize))
        guard !payloads.isEmpty else { return 0 }
        var depacketizer = JPEGDepacketizer()
        var pictures = 0
        for (index, payload) in payloads.enumerated() {
            let packet = RTPPacketBuilder(
                marker: payload.isLast, payloadType: 26, sequenceNumber: UInt16(index), timestamp: 0, ssrc: 1,
                payload: payload.bytes
            ).packet()
            depacketizer.push(packet)
            while depacketizer.nextAccessUnit() != nil { pictures += 1 }
        }
        precondition(
            pictures == 1 || depacketizer.lastError != nil, "a picture sent did not come back, and nothing says why")
    }
    return 0
}

private func check(_ payloads: [(bytes: [UInt8], isLast: Bool)], maxPayload: Int) {
    precondition(payloads.allSatisfy { $0.bytes.count <= maxPayload }, "a payload past the bound")
    precondition(
        payloads.dropLast().allSatisfy { !$0.isLast } && (payloads.last?.isLast ?? true), "a marker not on the last")
}
