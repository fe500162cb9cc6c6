/// Where datagrams are read from: a capture file, a capture of an RTSP session whose RTP is interleaved in
/// the RTSP connection (`RTSPSessionDatagrams`), or anything else that yields them in order.
public protocol DatagramSource {
    /// The next datagram, or nil at the end.
    mutating func nextDatagram() throws -> UDPDatagram?
    /// Calls `body` with each datagram in order until the source ends or `body` throws. A source that
    /// receives on a thread of its own (a live session) runs `body` there while the caller waits, so that
    /// no datagram has to cross threads; use ``nextDatagram()`` for work too slow for a receiving thread.
    mutating func forEachDatagram(_ body: (consuming UDPDatagram) throws -> Void) throws
    var warnings: CaptureWarnings { get }
}

extension DatagramSource {
    public mutating func forEachDatagram(_ body: (consuming UDPDatagram) throws -> Void) throws {
        while let datagram = try nextDatagram() { try body(datagram) }
    }
}

extension CaptureFile: DatagramSource {}
