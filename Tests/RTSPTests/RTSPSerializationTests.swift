import RTP
@_spi(SansIO) import RTSP
import Testing

/// What the client writes, the framer reads back: each serializer beside its parser.
@Suite struct RTSPSerializationTests {
    static func parsed(_ bytes: [UInt8]) throws -> [RTSPFramer.Frame] {
        var framer = RTSPFramer()
        framer.append(bytes)
        var frames: [RTSPFramer.Frame] = []
        while let frame = try framer.next() { frames.append(frame) }
        return frames
    }

    @Test func aRequestReadsBackAsItWasMade() throws {
        let request = RTSPRequest(
            method: .setup, url: try RTSPURL("rtsp://cam/live/track1"),
            headers: ["Transport": "RTP/AVP/TCP;unicast;interleaved=0-1", "Session": "abc"])
        let frames = try Self.parsed(request.serialized(cseq: 7))
        guard frames.count == 1, case .message(let message) = frames[0] else {
            Issue.record("not one message: \(frames)")
            return
        }
        #expect(message.kind == .request(method: "SETUP", uri: "rtsp://cam/live/track1"))
        #expect(message.cseq == 7)
        #expect(message.header("Transport") == "RTP/AVP/TCP;unicast;interleaved=0-1")
        #expect(message.header("Session") == "abc")
        #expect(message.body.isEmpty)
    }

    @Test func aResponseWithAndWithoutABodyReadsBack() throws {
        var described = RTSPMessage.response(status: 200, reason: "OK", cseq: 2)
        described.headers.append((name: "Content-Type", value: "application/sdp"))
        described.body = Array("v=0\r\n".utf8)
        let bytes =
            described.serialized() + RTSPMessage.response(status: 501, reason: "Not Implemented", cseq: 3).serialized()
        let frames = try Self.parsed(bytes)
        guard frames.count == 2, case .message(let first) = frames[0], case .message(let second) = frames[1] else {
            Issue.record("not two messages: \(frames)")
            return
        }
        #expect(first.kind == .response(statusCode: 200, reason: "OK"))
        #expect(first.body == Array("v=0\r\n".utf8))
        #expect(first.header("Content-Length") == "5")
        #expect(second.kind == .response(statusCode: 501, reason: "Not Implemented") && second.cseq == 3)
    }

    @Test func anInterleavedFrameReadsBackAndHasALimit() throws {
        let payload = (0..<1500).map { UInt8(truncatingIfNeeded: $0) }
        let frames = try Self.parsed(try #require(RTSPFramer.interleavedFrame(channel: 3, payload: payload)))
        guard frames.count == 1, case .interleaved(let channel, let read) = frames[0] else {
            Issue.record("not one frame: \(frames)")
            return
        }
        #expect(channel == 3 && Array(read) == payload)
        #expect(RTSPFramer.interleavedFrame(channel: 0, payload: [UInt8](repeating: 0, count: 65_536)) == nil)
        #expect(RTSPFramer.interleavedFrame(channel: 0, payload: [UInt8](repeating: 0, count: 65_535))?.count == 65_539)
    }
}
