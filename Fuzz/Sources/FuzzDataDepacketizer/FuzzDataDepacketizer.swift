import Metadata
import RTP

/// Settings, then a packet script, to the raw and ONVIF metadata depacketizers. The first byte: bits 0-1 the
/// kind (0 raw, 1 metadata, 2 metadata gzip-compressed), bits 4-7 the size bound (1 KiB shifted left by them,
/// at most 32 KiB). Then per packet a control byte (0x80 marker, 0x40 a loss of 1 + (control & 7) packets
/// before it, 0x20 a timestamp step of 9000, 0x10 a break), a big-endian 16-bit length, the payload. Checks:
/// no unit or document past its bound (a gzip payload may claim gigabytes), a document only when nothing was
/// lost in it, nothing left after a flush.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDataDepacketizer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let settings = bytes.first else { return 0 }
    let kind = settings & 3
    let bound = 1024 << min(5, Int(settings >> 4))
    var raw = RawDepacketizer(configuration: .init(maxUnitSize: bound))
    var metadata = MetadataDepacketizer(configuration: .init(gzip: kind == 2, maxDocumentSize: bound))
    func take() {
        if kind == 0 {
            while let unit = raw.nextUnit() {
                precondition(unit.bytes.count <= bound && unit.lostPackets >= 0, "a raw unit past its bound")
            }
        } else {
            while let document = metadata.nextDocument() {
                precondition(document.bytes.count <= bound, "a document past its bound")
                _ = document.text
            }
        }
    }
    var offset = 1
    var sequence: UInt16 = 0
    var timestamp: UInt32 = 0
    while offset + 3 <= bytes.count {
        let control = bytes[offset]
        let end = min(offset + 3 + (Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])), bytes.count)
        let payload = Array(bytes[(offset + 3)..<end])
        offset = end
        if control & 0x40 != 0 {
            raw.noteLoss(Int(control & 0x07) + 1)
            metadata.noteLoss(Int(control & 0x07) + 1)
        }
        if control & 0x10 != 0 {
            raw.cutOff()
            metadata.cutOff()
        }
        if control & 0x20 != 0 { timestamp &+= 9000 }
        let packet = RTPPacketBuilder(
            marker: control & 0x80 != 0, payloadType: 107, sequenceNumber: sequence, timestamp: timestamp, ssrc: 1,
            payload: payload
        ).packet()
        sequence &+= 1
        if kind == 0 { raw.push(packet) } else { metadata.push(packet) }
        take()
    }
    raw.flush()
    metadata.flush()
    take()
    precondition(raw.nextUnit() == nil && metadata.nextDocument() == nil)
    return 0
}
