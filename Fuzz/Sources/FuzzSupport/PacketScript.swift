import MediaPipeline
import H26x
import RTP

/// Plays fuzzer input to a depacketizer as a script of RTP packets: for each packet a control byte (0x80
/// marker, 0x40 a loss of 1 + (control & 7) packets before it, 0x20 a new timestamp) and a length byte,
/// then the payload. Every access unit is written out with `writer`, and its buffer must be exactly its
/// NAL units as Annex B (the layout `extract` writes without copying), none of them holding a start code;
/// a mismatch stops the fuzzer.
public func runPacketScript(
    _ input: ArraySlice<UInt8>, _ depacketizer: inout Depacketizer, writer: ElementaryStreamWriter
) {
    var out: [UInt8] = []
    func check(_ unit: AccessUnit) {
        writer.write(unit, parameterSets: ParameterSets(codec: unit.codec), into: &out)
        var annexB: [UInt8] = []
        for nal in unit.nalUnits {
            _ = nal.typeName
            annexB += [0, 0, 0, 1]
            annexB += nal.bytes
            // Start codes inside a payload (a camera quirk) split it: none may be left inside a NAL unit.
            if nal.bytes.count >= 3,
                nal.bytes.indices.dropLast(2).contains(where: {
                    nal.bytes[$0] == 0 && nal.bytes[$0 + 1] == 0 && nal.bytes[$0 + 2] == 1
                })
            {
                preconditionFailure("a NAL unit holds a start code: the depacketizer did not split it there")
            }
        }
        guard let own = unit.nalUnits.annexB, own.elementsEqual(annexB) else {
            preconditionFailure("an access unit's buffer is not its NAL units as Annex B")
        }
    }
    var offset = input.startIndex
    var seq: UInt16 = 0
    var timestamp: UInt32 = 0
    while offset + 2 <= input.endIndex {
        let control = input[offset]
        let end = min(offset + 2 + Int(input[offset + 1]), input.endIndex)
        let payload = Array(input[(offset + 2)..<end])
        offset = end
        if control & 0x40 != 0 {
            depacketizer.noteLoss(Int(control & 0x07) + 1)
            while let unit = depacketizer.next()?.accessUnit { check(unit) }
        }
        if control & 0x20 != 0 { timestamp &+= 3000 }
        let packet = RTPPacketBuilder(
            marker: control & 0x80 != 0, sequenceNumber: seq, timestamp: timestamp, ssrc: 1, payload: payload
        ).packet()
        seq &+= 1
        depacketizer.push(packet)
        while let unit = depacketizer.next()?.accessUnit { check(unit) }
    }
    depacketizer.flush()
    while let unit = depacketizer.next()?.accessUnit { check(unit) }
    _ = depacketizer.parameterSets?.sequenceParameterSet
}
