import RTP
@_spi(SansIO) import RTSP
import SDP
import Testing

/// The server's machine offering the ONVIF audio backchannel (ONVIF Streaming Specification 5.3) of a presentation
/// that takes viewers' voices: described only to a request that requires it, as one more track the client sends on.
@Suite struct ServerBackchannelSetupTests {
    typealias Machine = RTSPServerStateMachine
    static let formats = RTSPServerStateMachineTests.formats
    static let base = RTSPServerStateMachineTests.base
    static let pcma = AudioFormat(codec: .pcma, payloadType: 8, clockRate: 8000)
    static let require = ("Require", "www.onvif.org/ver20/backchannel")
    let t0 = ArrivalTime(nanoseconds: 0)

    static func machine(backchannel: AudioFormat?) -> Machine {
        var configuration = Machine.Configuration()
        configuration.udpPorts = (6970, 6971)
        configuration.multicastTTL = 1
        return Machine(
            presentations: [
                .init(
                    path: "/cam", formats: formats, multicast: MulticastGroup(address: "239.1.2.3", port: 5000),
                    backchannel: backchannel)
            ], configuration: configuration)
    }

    static func answer(
        _ machine: inout Machine, _ method: String, _ uri: String, cseq: Int, _ headers: [(String, String)]
    ) -> RTSPMessage? {
        let request = RTSPServerStateMachineTests.request(method, uri, cseq: cseq, headers)
        return RTSPServerStateMachineTests.answer(machine.receive(request, now: ArrivalTime(nanoseconds: 0)))
    }

    static func status(_ message: RTSPMessage?) -> Int? {
        guard case .response(let status, _)? = message?.kind else { return nil }
        return status
    }

    @Test func theBackchannelIsDescribedOnlyWhenRequiredAsATrackTheClientSends() throws {
        var machine = Self.machine(backchannel: Self.pcma)
        let plain = try #require(Self.answer(&machine, "DESCRIBE", Self.base, cseq: 2, []))
        let plainSDP = try SessionDescription(String(decoding: plain.body, as: UTF8.self))
        #expect(plainSDP.media.count == 2)
        #expect(!plainSDP.media.contains { $0.isBackchannel })
        #expect(!String(decoding: plain.body, as: UTF8.self).contains("recvonly"))

        let asked = try #require(Self.answer(&machine, "DESCRIBE", Self.base, cseq: 3, [Self.require]))
        #expect(Self.status(asked) == 200)
        let text = String(decoding: asked.body, as: UTF8.self)
        let sdp = try SessionDescription(text)
        #expect(sdp.media.map(\.control) == ["trackID=0", "trackID=1", "trackID=2"])
        #expect(sdp.media.map(\.isBackchannel) == [false, false, true])
        #expect(sdp.media.last?.audioFormat == Self.pcma)
        #expect(text.components(separatedBy: "a=recvonly\r\n").count == 3)  // each track the camera sends
        // The formats the client reads as the camera's are the tracks', the backchannel after them.
        #expect(sdp.media.dropLast().compactMap(\.mediaFormat) == Self.formats)
    }

    @Test func aPathThatTakesNoVoicesRefusesTheRequirement() throws {
        var machine = Self.machine(backchannel: nil)
        let refused = Self.answer(&machine, "DESCRIBE", Self.base, cseq: 2, [Self.require])
        #expect(Self.status(refused) == 551)
        #expect(refused?.header("Unsupported") == Self.require.1)
        #expect(Self.status(Self.answer(&machine, "SETUP", Self.base + "/trackID=2", cseq: 3, [
            ("Transport", "RTP/AVP/TCP;interleaved=4-5")
        ])) == 404)
    }

    @Test func theBackchannelIsSetUpUnicastBesideMulticastMediaAndPlayMarksIt() throws {
        var machine = Self.machine(backchannel: Self.pcma)
        let video = try #require(
            Self.answer(
                &machine, "SETUP", Self.base + "/trackID=0", cseq: 2,
                [("Transport", "RTP/AVP;multicast"), Self.require]))
        #expect(video.header("Transport")?.hasPrefix("RTP/AVP;multicast;destination=239.1.2.3") == true)
        let session = try #require(video.header("Session").flatMap(SessionHeader.init)).id
        // The voice comes from the client: a multicast offer for it is refused, a unicast one taken beside the group.
        let overMulticast = Self.answer(
            &machine, "SETUP", Self.base + "/trackID=2", cseq: 3,
            [("Transport", "RTP/AVP;multicast"), ("Session", session), Self.require])
        #expect(Self.status(overMulticast) == 461)
        let back = Self.answer(
            &machine, "SETUP", Self.base + "/trackID=2", cseq: 4,
            [("Transport", "RTP/AVP;unicast;client_port=7000-7001"), ("Session", session), Self.require])
        #expect(back?.header("Transport") == "RTP/AVP;unicast;client_port=7000-7001;server_port=6970-6971")
        let actions = machine.receive(
            RTSPServerStateMachineTests.request("PLAY", Self.base + "/", cseq: 5, [("Session", session), Self.require]),
            now: t0)
        guard case .play(let play)? = actions.first else {
            Issue.record("PLAY gave \(actions)")
            return
        }
        #expect(play.tracks.map(\.index) == [0, 2])
        #expect(play.tracks.map(\.isBackchannel) == [false, true])
        #expect(play.tracks.last?.transport == .udp(rtp: 7000, rtcp: 7001))
    }
}
