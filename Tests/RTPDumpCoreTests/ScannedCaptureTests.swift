import PacketCapture
import RTPDumpCore
import Testing

/// A capture read once (the look for an RTSP session keeps the datagrams it read, then the file goes on)
/// must give exactly what reading the file from its start gives: every datagram, in order, and the same
/// warnings; also when the look stops inside the file, and when it keeps nothing because of its memory bound.
@Suite struct ScannedCaptureTests {
    struct Seen: Equatable {
        var index: Int
        var time: Int64
        var source: SocketAddress
        var destination: SocketAddress
        var payload: [UInt8]
    }

    /// The datagrams up to the end, or to the error that stopped the reading (and the error).
    static func read(_ source: inout some DatagramSource) -> ([Seen], String?) {
        var seen: [Seen] = []
        do {
            while let d = try source.nextDatagram() {
                seen.append(
                    Seen(
                        index: d.recordIndex, time: d.time.nanoseconds, source: d.source, destination: d.destination,
                        payload: Array(d.payload)))
            }
        } catch {
            return (seen, "\(error)")
        }
        return (seen, nil)
    }

    @Test(arguments: [
        "h264-gst.pcap", "h264-gst-dropped.pcap", "h265-gst-sll.pcap", "h265-ffmpeg-ipv6.pcapng",
        "rtsp-h264-udp.pcap", "garbage-records.pcap",
    ])
    func givesWhatOneReadFromTheStartGives(capture name: String) throws {
        let path = Fixtures.capture(name)
        var plain = try CaptureFile(contentsOf: path)
        let expected = Self.read(&plain)
        // (garbage-records.pcap: 49 records that are not UDP, then one that is damaged beyond repair)
        #expect(name == "garbage-records.pcap" ? expected.1 != nil : expected.0.count > 10 && expected.1 == nil)
        // The whole file in the look, the look stopping after 7 packets, and nothing kept.
        for (maxRecords, maxKeptBytes) in [(20_000, ScannedCapture.maxKeptBytes), (7, ScannedCapture.maxKeptBytes), (20_000, 1000)] {
            var (source, _) = try ScannedCapture.open(path, maxRecords: maxRecords, maxKeptBytes: maxKeptBytes)
            let seen = Self.read(&source)
            #expect(seen.0 == expected.0 && seen.1 == expected.1, "\(name), \(maxRecords) packets looked at, \(maxKeptBytes) bytes kept at most")
            #expect(source.warnings == plain.warnings, "\(name)")
        }
    }

    @Test func aSessionWithInterleavedRTPIsReadFromItsConnection() throws {
        let (source, session) = try ScannedCapture.open(Fixtures.capture("rtsp-h264-tcp.pcap"))
        #expect(session?.rtpChannels == [0])
        #expect(source is RTSPSessionDatagrams)
    }
}
