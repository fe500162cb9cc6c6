import H26x
import RTP

/// Splits the input into RTP payloads (a 2-byte length before each; the top bits of its first byte set
/// the marker, a loss before the packet, and a timestamp step) and runs them through an H.264
/// depacketizer, interleaved (mode 2) when the input's first byte is odd. Every access unit is written out.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzH264Depacketizer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    var depacketizer = VideoDepacketizer(
        H264Depacketizer(
            configuration: .init(maxNALSize: 4096, maxAccessUnitSize: 16384, deinterleavingDepth: Int(first & 1) * 4)))
    runPackets(bytes.dropFirst(), &depacketizer)
    return 0
}

func runPackets(_ input: ArraySlice<UInt8>, _ depacketizer: inout VideoDepacketizer) {
    var out: [UInt8] = []
    let writer = ElementaryStreamWriter()
    let emit = { (unit: AccessUnit) in
        writer.write(unit, parameterSets: ParameterSets(codec: unit.codec), into: &out)
        for nal in unit.nalUnits { _ = nal.typeName }
    }
    var offset = input.startIndex
    var seq: UInt16 = 0
    var timestamp: UInt32 = 0
    while offset + 2 <= input.endIndex {
        let control = input[offset]
        let length = Int(input[offset + 1])
        offset += 2
        let end = min(offset + length, input.endIndex)
        let payload = Array(input[offset..<end])
        offset = end
        if control & 0x40 != 0 { depacketizer.noteLoss(Int(control & 0x07) + 1, emit: emit) }
        if control & 0x20 != 0 { timestamp &+= 3000 }
        let packet = RTPPacketBuilder(
            marker: control & 0x80 != 0, sequenceNumber: seq, timestamp: timestamp, ssrc: 1, payload: payload
        ).packet()
        seq &+= 1
        depacketizer.push(packet, emit: emit)
    }
    depacketizer.flush(emit: emit)
    _ = depacketizer.parameterSets.sequenceParameterSet
}
