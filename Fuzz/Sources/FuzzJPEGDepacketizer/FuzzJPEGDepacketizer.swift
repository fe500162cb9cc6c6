import H26x
import JPEG
import RTP

/// Settings, then a packet script, to the Motion JPEG depacketizer. The first 5 bytes: the configured size
/// (two big-endian 16-bit sides; 0 for none, as without a=x-dimensions) and the picture size limit (1 KiB
/// shifted left by the byte's low 4 bits). Then per packet a control byte (0x80 marker, 0x40 a loss of
/// 1 + (control & 7) packets before it, 0x20 a timestamp step of 6000, 0x10 a break), a big-endian 16-bit
/// length, the payload (headers and tables included, as hostile as the input makes them). Checks: every picture is a
/// JPEG file (SOI first, EOI last) within the limit, counts are sane, nothing is left after a flush.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEGDepacketizer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count >= 5 else { return 0 }
    let width = Int(bytes[0]) << 8 | Int(bytes[1])
    let height = Int(bytes[2]) << 8 | Int(bytes[3])
    let configuration = JPEGDepacketizer.Configuration(
        size: width == 0 ? nil : (width, height), maxPictureSize: 1024 << Int(bytes[4] & 0x0F))
    var depacketizer = JPEGDepacketizer(configuration: configuration)
    func take() {
        while let picture = depacketizer.nextAccessUnit() {
            guard let file = picture.jpeg else { preconditionFailure("a picture without its file") }
            precondition(file.count <= configuration.maxPictureSize + 2, "a picture past the limit")
            precondition(
                file.starts(with: [0xFF, 0xD8]) && file.suffix(2).elementsEqual([0xFF, 0xD9]), "not a JPEG file")
            precondition(picture.lostPackets == 0 && picture.isKeyframe, "a picture handed on incomplete")
        }
    }
    var offset = 5
    var sequence: UInt16 = 0
    var timestamp: UInt32 = 0
    while offset + 3 <= bytes.count {
        let control = bytes[offset]
        let end = min(offset + 3 + (Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])), bytes.count)
        let payload = Array(bytes[(offset + 3)..<end])
        offset = end
        if control & 0x40 != 0 { depacketizer.noteLoss(Int(control & 0x07) + 1) }
        if control & 0x10 != 0 { depacketizer.cutOff() }
        if control & 0x20 != 0 { timestamp &+= 6000 }
        depacketizer.push(
            RTPPacketBuilder(
                marker: control & 0x80 != 0, payloadType: 26, sequenceNumber: sequence, timestamp: timestamp, ssrc: 1,
                payload: payload
            ).packet())
        sequence &+= 1
        take()
    }
    depacketizer.flush()
    take()
    let statistics = depacketizer.statistics
    precondition(statistics.pictures >= 0 && statistics.droppedPictures >= 0)
    precondition(depacketizer.nextAccessUnit() == nil)
    return 0
}
