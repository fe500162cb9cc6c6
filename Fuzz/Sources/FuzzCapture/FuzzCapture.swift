import RTP

@_spi(SansIO) @testable import PacketCapture  // (debug builds are testable) for `takesPlainPath`

/// Reads the input as a capture file down to UDP datagrams and parses each as RTP. The datagrams must be
/// the ones the general path (record by record through the link layer, IP and UDP) finds: `nextDatagram`
/// takes plain records in one step, and a difference stops the fuzzer. So does a TCP segment that a
/// reader taking plain records first (`nextPlainDatagram`, then `nextPacket`, as `RTSPSessionDatagrams`
/// reads) finds and the general path does not, or the other way round.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCapture(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard var capture = try? CaptureFile(bytes: bytes), var general = try? CaptureFile(bytes: bytes),
        var plainFirst = try? CaptureFile(bytes: bytes)
    else { return 0 }
    general.takesPlainPath = false
    var count = 0
    var tcp: [Int] = []
    while true {
        let datagram = try? capture.nextDatagram()
        var expected: UDPDatagram?
        while let packet = try? general.nextPacket() {
            switch packet {
            case .udp(let found): expected = found
            case .tcp(let segment): tcp.append(segment.recordIndex)
            }
            if expected != nil { break }
        }
        guard same(datagram, expected) else { preconditionFailure("nextDatagram and nextPacket disagree") }
        guard let datagram else { break }
        count &+= datagram.payload.count
        if let packet = try? RTPPacket(datagram.payload) { count &+= packet.payload.count }
        _ = datagram.source.description
        _ = datagram.destination.description
    }
    while let packet = try? general.nextPacket() {
        if case .tcp(let segment) = packet { tcp.append(segment.recordIndex) }
    }
    var plainFirstTCP: [Int] = []
    while true {
        if plainFirst.nextPlainDatagram() != nil { continue }
        guard let packet = try? plainFirst.nextPacket() else { break }
        if case .tcp(let segment) = packet { plainFirstTCP.append(segment.recordIndex) }
    }
    guard plainFirstTCP == tcp else { preconditionFailure("taking plain records first changed the TCP segments found") }
    return count == Int.min ? 1 : 0
}

func same(_ a: UDPDatagram?, _ b: UDPDatagram?) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    return a.recordIndex == b.recordIndex && a.time == b.time && a.source == b.source
        && a.destination == b.destination && a.isTruncated == b.isTruncated && a.payload.elementsEqual(b.payload)
}
