import PacketCapture
import RTP

/// Reads the input as a capture file down to UDP datagrams and parses each as RTP.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCapture(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard var capture = try? CaptureFile(bytes: bytes) else { return 0 }
    var count = 0
    while let datagram = try? capture.nextDatagram() {
        count &+= datagram.payload.count
        if let packet = try? RTPPacket(datagram.payload) { count &+= packet.payload.count }
        _ = datagram.source.description
        _ = datagram.destination.description
    }
    return count == Int.min ? 1 : 0
}
