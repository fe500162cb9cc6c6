import RTP
import Testing

@_spi(SansIO) @testable import RTSP

/// The ONVIF audio backchannel, sans I/O: what the client asks and sets up, with gst-rtsp-server's ONVIF SDP
/// (its receive tracks `a=recvonly`, the backchannel `a=sendonly`).
@Suite struct BackchannelStateMachineTests {
    typealias Machine = RTSPClientStateMachineTests

    static let onvifSDP = """
        v=0\r
        o=- 1 1 IN IP4 127.0.0.1\r
        s=Session streamed with GStreamer\r
        t=0 0\r
        a=control:*\r
        m=video 0 RTP/AVP 96\r
        a=rtpmap:96 H264/90000\r
        a=fmtp:96 packetization-mode=1\r
        a=control:stream=0\r
        a=recvonly\r
        m=audio 0 RTP/AVP 0\r
        a=rtpmap:0 PCMU/8000\r
        a=control:stream=1\r
        a=sendonly\r

        """

    static func played(backchannel: Bool) throws -> (RTSPClientStateMachine, [RTSPRequest]) {
        var m = RTSPClientStateMachine(
            configuration: .init(
                url: try RTSPURL("rtsp://door/test"), mediaKinds: [.video, .audio], backchannel: backchannel))
        var requests = Machine.sent(m.start(now: .zero)).map(\.0)
        requests += Machine.sent(
            m.receive(Machine.answer(200, 1, [("Public", "OPTIONS, DESCRIBE, SETUP, PLAY")]), now: .zero)
        ).map(\.0)
        requests += Machine.sent(
            m.receive(
                Machine.answer(200, 2, [("Content-Base", "rtsp://door/test/")], body: onvifSDP), now: .zero)
        ).map(\.0)
        var cseq = 3
        while requests.last?.method == "SETUP" {
            requests += Machine.sent(m.receive(Machine.answer(200, cseq, [("Session", "S1")]), now: .zero)).map(\.0)
            cseq += 1
        }
        _ = m.receive(Machine.answer(200, cseq, [("Session", "S1")]), now: .zero)
        return (m, requests)
    }

    @Test func theBackchannelIsRequiredAndSetUpAsATrackToSendOn() throws {
        let (m, requests) = try Self.played(backchannel: true)
        #expect(requests.map(\.method) == ["OPTIONS", "DESCRIBE", "SETUP", "SETUP", "PLAY"])
        let requirement = "www.onvif.org/ver20/backchannel"
        #expect(requests.map { $0.headers["Require"] } == [nil, requirement, requirement, requirement, requirement])
        #expect(m.tracks.map(\.isBackchannel) == [false, true])
        #expect(m.tracks.last?.control.description == "rtsp://door/test/stream=1")
        #expect(requests[3].headers["Transport"] == "RTP/AVP/TCP;unicast;interleaved=2-3")
        // PLAY goes without a Range: gst-rtsp-server's ONVIF media answers 503 to one.
        #expect(requests.last?.headers["Range"] == nil)
    }

    /// Not asked for: the sendonly section is left out (nothing would ever arrive on it), and nothing is required.
    @Test func withoutAskingTheSendOnlySectionIsLeftOut() throws {
        let (m, requests) = try Self.played(backchannel: false)
        #expect(requests.map(\.method) == ["OPTIONS", "DESCRIBE", "SETUP", "PLAY"])
        #expect(requests.allSatisfy { $0.headers["Require"] == nil })
        #expect(m.tracks.count == 1 && m.tracks.first?.format.kind == .video)
        #expect(requests.last?.headers["Range"] == "npt=0.000-")
    }

    /// A camera that does not do it answers DESCRIBE with 551: the session fails saying so.
    @Test func a551SaysTheCameraHasNoBackchannel() throws {
        var m = RTSPClientStateMachine(configuration: .init(url: try RTSPURL("rtsp://cam/s"), backchannel: true))
        _ = m.start(now: .zero)
        _ = m.receive(Machine.answer(200, 1, [("Public", "OPTIONS, DESCRIBE, SETUP, PLAY")]), now: .zero)
        let actions = m.receive(
            Machine.answer(551, 2, [("Unsupported", "www.onvif.org/ver20/backchannel")]), now: .zero)
        guard case .failed(let error)? = actions.first else {
            Issue.record("\(actions)")
            return
        }
        #expect(error.code == .unsupported)
        #expect(error.reason.contains("no ONVIF audio backchannel"), "\(error)")
    }
}
