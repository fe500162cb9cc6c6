import PacketCapture

/// A capture file read once from its start: the UDP datagrams that the look for an RTSP session
/// (``RTSPSessionInfo/scan(_:maxRecords:reading:)``) read, then the rest of the file. Reading the start
/// again instead cost about 5 ms of 80 in `rtpdump extract` on a 185 MB capture (Docs/Performance.md).
public struct ScannedCapture: DatagramSource {
    /// The most payload bytes kept from the scan; past it the scan keeps nothing and the file is read again
    /// from its start (a capture of large datagrams, where keeping them would cost more memory than the
    /// second read costs time).
    public static let maxKeptBytes = 32 << 20

    private var kept: [UDPDatagram]
    private var next = 0
    private var capture: CaptureFile
    /// TCP segments the scan read: a plain read counts them as not UDP.
    private let scannedTCP: Int

    /// Opens the capture at `path` and reads what its first `maxRecords` packets say of an RTSP session.
    /// The source gives the datagrams of a session whose RTP is interleaved in its RTSP connection
    /// (``RTSPSessionDatagrams``), else the capture's UDP datagrams.
    public static func open(
        _ path: String, maxRecords: Int = 20_000, maxKeptBytes: Int = ScannedCapture.maxKeptBytes
    ) throws -> (source: any DatagramSource, session: RTSPSessionInfo?) {
        var capture = try CaptureInput.open(path)
        var kept: [UDPDatagram] = []
        var keptBytes = 0
        var keeping = true
        var tcp = 0
        let session = RTSPSessionInfo.scan(&capture, maxRecords: maxRecords) { packet in
            switch packet {
            case .tcp: tcp += 1
            case .udp(let datagram) where keeping:
                keptBytes += datagram.payload.count
                if keptBytes <= maxKeptBytes {
                    kept.append(datagram)
                } else {
                    keeping = false
                    kept = []
                }
            case .udp: break
            }
        }
        if let session, !session.rtpChannels.isEmpty {
            return (RTSPSessionDatagrams(capture: try CaptureInput.open(path), info: session), session)
        }
        guard keeping else { return (try CaptureInput.open(path), session) }
        return (ScannedCapture(kept: kept, capture: capture, scannedTCP: tcp), session)
    }

    private init(kept: [UDPDatagram], capture: CaptureFile, scannedTCP: Int) {
        self.kept = kept
        self.capture = capture
        self.scannedTCP = scannedTCP
    }

    public var warnings: CaptureWarnings {
        var all = capture.warnings
        all.notUDP += scannedTCP
        return all
    }

    public mutating func nextDatagram() throws -> UDPDatagram? {
        if next < kept.count {
            let datagram = kept[next]
            next += 1
            if next == kept.count {
                kept = []  // (and the chunks of the file they hold)
                next = 0
            }
            return datagram
        }
        return try capture.nextDatagram()
    }
}
