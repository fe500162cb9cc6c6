import Testing

@_spi(SansIO) @testable import RTSP

@Suite struct RTSPFramerTests {
    static let describe = Array(
        "RTSP/1.0 200 OK\r\nCSeq: 2\r\nContent-Type: application/sdp\r\nContent-Length: 10\r\n\r\nv=0\r\ns=x\r\n".utf8)

    static func frames(_ bytes: [UInt8], chunk: Int = .max, limits: RTSPFramer.Limits = .init()) throws -> [RTSPFramer
        .Frame]
    {
        var framer = RTSPFramer(limits: limits)
        var out: [RTSPFramer.Frame] = []
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + chunk, bytes.count)
            framer.append(bytes[offset..<end])
            offset = end
            while let frame = try framer.next() { out.append(frame) }
        }
        return out
    }

    @Test func messagesAndInterleavedFramesInAnyChunking() throws {
        let rtp: [UInt8] = [0x24, 0, 0, 3, 0x80, 0x60, 0x01]
        let bytes = Self.describe + rtp + [0x24, 1, 0, 0] + Self.describe
        for chunk in [1, 2, 7, 1000] {
            let frames = try Self.frames(bytes, chunk: chunk)
            #expect(frames.count == 4, "chunk \(chunk)")
            guard case .message(let m) = frames[0], case .interleaved(0, let payload) = frames[1],
                case .interleaved(1, let empty) = frames[2]
            else {
                Issue.record("unexpected frames \(frames)")
                continue
            }
            #expect(m.kind == .response(statusCode: 200, reason: "OK"))
            #expect(m.cseq == 2)
            #expect(m.header("content-type") == "application/sdp")
            #expect(m.body == Array("v=0\r\ns=x\r\n".utf8))
            #expect(Array(payload) == [0x80, 0x60, 0x01])
            #expect(empty.isEmpty)
        }
    }

    @Test func parsesRequestsAndToleratesBareLineFeeds() throws {
        let bytes = Array("SET_PARAMETER rtsp://cam/stream RTSP/1.0\nCSeq: 9\nSession:  12345678;timeout=60 \n\n".utf8)
        guard case .message(let m)? = try Self.frames(bytes).first else {
            Issue.record("no message")
            return
        }
        #expect(m.kind == .request(method: "SET_PARAMETER", uri: "rtsp://cam/stream"))
        #expect(m.header("session") == "12345678;timeout=60")
    }

    @Test func incompleteInputWaitsForMore() throws {
        var framer = RTSPFramer()
        framer.append(Self.describe.dropLast(3))
        #expect(try framer.next() == nil)
        framer.append(Self.describe.suffix(3))
        #expect(try framer.next() != nil)
        #expect(framer.pendingBytes == 0)
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\n\r\n", "garbage\r\n\r\n", "RTSP/1.0 abc OK\r\n\r\n",
        "RTSP/1.0 200 OK\r\nno colon here\r\n\r\n", "RTSP/1.0 200 OK\r\nContent-Length: -4\r\n\r\n",
        "RTSP/1.0 200 OK\r\nContent-Length: lots\r\n\r\n",
    ])
    func malformedMessagesAreClearErrors(text: String) {
        let error = #expect(throws: RTSPError.self) { try Self.frames(Array(text.utf8)) }
        #expect(error?.code == .malformedMessage)
    }

    /// Bytes that cannot begin a message (a TLS record, a line feed, a digit) are an error at once, not
    /// after a header block's worth of them; those that can, wait for the rest.
    @Test func aFirstByteThatCannotStartAMessageIsAnErrorAtOnce() throws {
        for first: UInt8 in [0x16, 0x0A, 0x0D, UInt8(ascii: "1"), 0x00, 0x7F] {
            var framer = RTSPFramer()
            framer.append([first, 0x03, 0x01])
            #expect(
                throws: RTSPError(
                    .malformedMessage,
                    "not an RTSP message: it starts with byte 0x\(first < 16 ? "0" : "")\(String(first, radix: 16))")
            ) {
                try framer.next()
            }
        }
        for first in [UInt8(ascii: "O"), UInt8(ascii: "R"), UInt8(ascii: "_"), UInt8(ascii: " "), 0xC3] {
            var framer = RTSPFramer()
            framer.append([first, 0x03, 0x01])
            #expect(try framer.next() == nil)
        }
    }

    @Test func limitsHold() {
        let small = RTSPFramer.Limits(maxHeaderBytes: 64, maxLineBytes: 40, maxBodyBytes: 10, maxHeaderFields: 2)
        let endless = Array("RTSP/1.0 200 OK\r\nX: ".utf8) + [UInt8](repeating: 0x41, count: 100)
        #expect(throws: RTSPError(.limitExceeded, "RTSP header block longer than 64 bytes")) {
            try Self.frames(endless, limits: small)
        }
        let longLine = Array("RTSP/1.0 200 OK\r\nX: \(String(repeating: "y", count: 40))\r\n\r\n".utf8)
        #expect(throws: RTSPError.self) { try Self.frames(longLine, limits: small) }
        let manyFields = Array("RTSP/1.0 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n".utf8)
        #expect(throws: RTSPError.self) { try Self.frames(manyFields, limits: small) }
        let bigBody = Array("RTSP/1.0 200 OK\r\nContent-Length: 11\r\n\r\n".utf8)
        #expect(throws: RTSPError.self) { try Self.frames(bigBody, limits: small) }
    }
}

@Suite struct TransportHeaderTests {
    @Test func interleavedTCP() {
        let t = TransportHeader("RTP/AVP/TCP;unicast;interleaved=0-1;ssrc=5F9D3A2B;mode=\"PLAY\"")
        #expect(t.profile == "RTP/AVP/TCP")
        #expect(t.interleavedChannels?.rtp == 0 && t.interleavedChannels?.rtcp == 1)
        #expect(t.ssrc == 0x5F9D_3A2B)
        #expect(!t.isMulticast)
    }

    @Test func udpPortsAndTheFirstOfSeveralSpecifications() {
        let t = TransportHeader(
            "RTP/AVP;unicast;client_port=40000-40001;server_port=6970-6971,RTP/AVP/TCP;interleaved=0-1")
        #expect(t.clientPorts?.rtp == 40000 && t.clientPorts?.rtcp == 40001)
        #expect(t.serverPorts?.rtp == 6970)
        #expect(t.interleavedChannels == nil)
    }

    @Test func multicastGroupPortsAndSource() {
        // gst-rtsp-server's answer to a multicast SETUP, with a source= added.
        let t = TransportHeader(
            "RTP/AVP;multicast;destination=239.255.42.0;ttl=1;port=51840-51841;source=10.0.0.7;mode=\"PLAY\"")
        #expect(t.isMulticast)
        #expect(t.destination == "239.255.42.0")
        #expect(t.multicastPorts?.rtp == 51840 && t.multicastPorts?.rtcp == 51841)
        #expect(t.source == "10.0.0.7")
        #expect(TransportHeader("RTP/AVP;unicast;client_port=1-2").destination == nil)
    }

    @Test func outOfRangeNumbersAreIgnored() {
        let t = TransportHeader("RTP/AVP/TCP;interleaved=300-301;client_port=70000")
        #expect(t.interleavedChannels == nil)
        #expect(t.clientPorts == nil)
    }
}
