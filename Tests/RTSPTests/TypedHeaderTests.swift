@_spi(SansIO) import RTSP
import Testing

/// The headers both machines write are typed, each with its serializer beside its parser: what one writes, the
/// other reads back as the same header.
@Suite struct TypedHeaderTests {
    @Test func transportHeadersReadBackAsWritten() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            func pair<T: FixedWidthInteger>(_: T.Type) -> (T, T)? {
                Bool.random(using: &random) ? (T.random(in: T.min...T.max), T.random(in: T.min...T.max)) : nil
            }
            let header = TransportHeader(
                profile: ["RTP/AVP", "RTP/AVP/TCP", "RTP/SAVP", "RTP/SAVP/TCP", "RTP/AVP/UDP"].randomElement()!,
                isMulticast: Bool.random(), interleavedChannels: pair(UInt8.self).map { (rtp: $0.0, rtcp: $0.1) },
                clientPorts: pair(UInt16.self).map { (rtp: $0.0, rtcp: $0.1) },
                serverPorts: pair(UInt16.self).map { (rtp: $0.0, rtcp: $0.1) },
                ssrc: Bool.random() ? UInt32.random(in: 0...UInt32.max) : nil,
                destination: Bool.random() ? "239.1.2.\(UInt8.random(in: 0...255))" : nil,
                source: Bool.random() ? "192.0.2.7" : nil,
                multicastPorts: pair(UInt16.self).map { (rtp: $0.0, rtcp: $0.1) },
                mode: ["play", "record", nil].randomElement()!)
            let read = TransportHeader(header.serialized())
            #expect(read == header, "\(header.serialized())")
            #expect(read.interleavedChannels?.rtcp == header.interleavedChannels?.rtcp)
            #expect(
                read.clientPorts?.rtcp == header.clientPorts?.rtcp && read.serverPorts?.rtcp == header.serverPorts?.rtcp
            )
        }
    }

    /// RFC 2326's own examples are written as the RFC writes them.
    @Test func transportHeadersAreWrittenInTheRFCsForm() {
        #expect(
            TransportHeader(profile: "RTP/AVP/TCP", interleavedChannels: (0, 1)).serialized()
                == "RTP/AVP/TCP;unicast;interleaved=0-1")
        #expect(
            TransportHeader(profile: "RTP/AVP", clientPorts: (3456, 3457), serverPorts: (6256, 6257)).serialized()
                == "RTP/AVP;unicast;client_port=3456-3457;server_port=6256-6257")
        #expect(
            TransportHeader(
                profile: "RTP/AVP", isMulticast: true, destination: "224.2.0.1", multicastPorts: (3456, 3457)
            )
            .serialized() == "RTP/AVP;multicast;destination=224.2.0.1;port=3456-3457")
        #expect(TransportHeader(profile: "RTP/AVP", ssrc: 0xABC).serialized() == "RTP/AVP;unicast;ssrc=00000ABC")
        // What a caller puts in a text field cannot add a field or a transport.
        #expect(
            TransportHeader(profile: "RTP/AVP", destination: "1.2.3.4;mode=record,RTP/AVP").serialized()
                == "RTP/AVP;unicast;destination=1.2.3.4mode=recordRTP/AVP")
    }

    @Test func sessionAndRTPInfoHeadersReadBackAsWritten() throws {
        let session = SessionHeader(id: "5A9F0C11", timeout: .seconds(45))
        #expect(session.serialized() == "5A9F0C11;timeout=45")
        #expect(SessionHeader(session.serialized()) == session)
        #expect(SessionHeader(id: "a; timeout=1").serialized() == "atimeout=1;timeout=60")
        let info = RTPInfo(entries: [
            .init(url: "rtsp://h/cam/trackID=0", sequenceNumber: 65535, rtpTime: 4_294_967_295, ssrcs: [0x1234]),
            .init(url: "trackID=1", sequenceNumber: 0, rtpTime: 0),
        ])
        #expect(
            info.serialized()
                == "url=rtsp://h/cam/trackID=0;seq=65535;rtptime=4294967295;ssrc=00001234,url=trackID=1;seq=0;rtptime=0"
        )
        let read = RTPInfo(info.serialized())
        #expect(read.entries.map(\.url) == info.entries.map(\.url))
        #expect(read.entries.map(\.sequenceNumber) == info.entries.map(\.sequenceNumber))
        #expect(read.entries.map(\.rtpTime) == info.entries.map(\.rtpTime))
        #expect(read.entries[0].ssrcs.contains(0x1234))
    }
}
