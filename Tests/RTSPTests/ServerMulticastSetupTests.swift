import RTP
@_spi(SansIO) import RTSP
import SDP
import Testing

/// The server's machine answering multicast SETUPs (RFC 2326 section 12.39): the presentation's group and a port
/// pair per track, whatever the client asked for; refused, with the reason, where no group is served.
@Suite struct ServerMulticastSetupTests {
    typealias Machine = RTSPServerStateMachine
    static let formats = RTSPServerStateMachineTests.formats
    static let base = RTSPServerStateMachineTests.base
    static let group = MulticastGroup(address: "239.1.2.3", port: 5000)
    let t0 = ArrivalTime(nanoseconds: 0)

    static func machine(group: MulticastGroup?, ttl: UInt8? = 4) -> Machine {
        var configuration = Machine.Configuration()
        configuration.udpPorts = (6970, 6971)
        configuration.multicastTTL = ttl
        return Machine(
            presentations: [.init(path: "/cam", formats: formats, multicast: group)], configuration: configuration)
    }

    static func setup(_ machine: inout Machine, track: Int, _ transport: String, session: String? = nil, cseq: Int)
        -> RTSPMessage?
    {
        var headers = [("Transport", transport)]
        if let session { headers.append(("Session", session)) }
        return RTSPServerStateMachineTests.answer(
            machine.receive(
                RTSPServerStateMachineTests.request("SETUP", base + "/trackID=\(track)", cseq: cseq, headers),
                now: ArrivalTime(nanoseconds: 0)))
    }

    static func status(_ message: RTSPMessage?) -> Int? {
        guard case .response(let status, _)? = message?.kind else { return nil }
        return status
    }

    @Test func eachTrackGetsThePathsGroupOnItsOwnPortsAndPlayCarriesThem() throws {
        var machine = Self.machine(group: Self.group)
        // What the client asks for (its own group and ports) is not what it gets: the others are in the path's group.
        let first = try #require(
            Self.setup(
                &machine, track: 0, "RTP/AVP;multicast;destination=239.9.9.9;port=7000-7001;ttl=9", cseq: 2))
        #expect(first.header("Transport") == "RTP/AVP;multicast;destination=239.1.2.3;port=5000-5001;ttl=4")
        let session = try #require(first.header("Session").flatMap(SessionHeader.init)).id
        let second = try #require(Self.setup(&machine, track: 1, "RTP/AVP/UDP;multicast", session: session, cseq: 3))
        #expect(second.header("Transport") == "RTP/AVP;multicast;destination=239.1.2.3;port=5002-5003;ttl=4")
        let actions = machine.receive(
            RTSPServerStateMachineTests.request("PLAY", Self.base + "/", cseq: 4, [("Session", session)]), now: t0)
        guard case .play(let play)? = actions.first else {
            Issue.record("PLAY gave \(actions)")
            return
        }
        let group = try #require(Self.group)
        #expect(play.tracks.map(\.index) == [0, 1])
        #expect(
            play.tracks.map(\.transport) == [
                .multicast(group, rtp: 5000, rtcp: 5001), .multicast(group, rtp: 5002, rtcp: 5003),
            ])
    }

    @Test func aPathWithoutAGroupOrAServerWithoutMulticastRefusesItAndSaysWhatItSends() throws {
        var withoutGroup = Self.machine(group: nil)
        let refused = Self.setup(&withoutGroup, track: 0, "RTP/AVP;multicast", cseq: 2)
        #expect(Self.status(refused) == 461)
        #expect(
            refused?.header("Reason") == "this server sends /cam as RTP/AVP/TCP;interleaved or RTP/AVP;unicast")
        // The group is the path's, but this server sends no multicast (no TTL: no multicast socket).
        var withoutMulticast = Self.machine(group: Self.group, ttl: nil)
        #expect(Self.status(Self.setup(&withoutMulticast, track: 0, "RTP/AVP;multicast", cseq: 2)) == 461)
        // Multicast is not interleaved in a connection.
        var served = Self.machine(group: Self.group)
        let overTCP = Self.setup(&served, track: 0, "RTP/AVP/TCP;multicast", cseq: 2)
        #expect(Self.status(overTCP) == 461)
        #expect(overTCP?.header("Reason")?.hasSuffix("or RTP/AVP;multicast") == true)
    }

    @Test func aClientOfferingMulticastFirstFallsBackToWhatItOffersNext() throws {
        var machine = Self.machine(group: nil)
        let answer = Self.setup(&machine, track: 0, "RTP/AVP;multicast,RTP/AVP/TCP;unicast;interleaved=0-1", cseq: 2)
        #expect(answer?.header("Transport") == "RTP/AVP/TCP;unicast;interleaved=0-1")
    }

    @Test func aSessionsTracksAreAllMulticastOrNone() throws {
        var machine = Self.machine(group: Self.group)
        let first = try #require(Self.setup(&machine, track: 0, "RTP/AVP;multicast", cseq: 2))
        let session = try #require(first.header("Session").flatMap(SessionHeader.init)).id
        let mixed = Self.setup(&machine, track: 1, "RTP/AVP/TCP;interleaved=2-3", session: session, cseq: 3)
        #expect(Self.status(mixed) == 461)
        #expect(mixed?.header("Reason")?.contains("all multicast or none") == true)
        // The same track set up again another way is not a mix: it replaces itself.
        let again = Self.setup(&machine, track: 0, "RTP/AVP/TCP;interleaved=0-1", session: session, cseq: 4)
        #expect(Self.status(again) == 200)
    }

    @Test func aGroupIsAnIPv4MulticastAddressAndAnEvenPort() throws {
        #expect(MulticastGroup(address: "224.0.0.1", port: 2) != nil)
        #expect(MulticastGroup(address: "239.255.255.255", port: 65534) != nil)
        #expect(MulticastGroup("239.0.0.1:5004") == MulticastGroup(address: "239.0.0.1", port: 5004))
        for address in ["223.255.255.255", "240.0.0.1", "10.0.0.1", "239.0.0", "239.0.0.1.1", "239.0.0.256",
            "239.0.0.-1", "239.0.0.+1", "239..0.1", "ff02::1", "", "239.0.0.0001"]
        {
            #expect(MulticastGroup(address: address, port: 5004) == nil, "\(address)")
        }
        #expect(MulticastGroup(address: "239.0.0.1", port: 5005) == nil)  // odd: RTCP would take the RTP port's pair
        #expect(MulticastGroup(address: "239.0.0.1", port: 0) == nil)
        for text in ["239.0.0.1", "239.0.0.1:", "239.0.0.1:70000", ":5004", "239.0.0.1:50 04"] {
            #expect(MulticastGroup(text) == nil, "\(text)")
        }
        let group = try #require(MulticastGroup(address: "239.0.0.1", port: 65532))
        #expect(group.ports(track: 1)! == (65534, 65535))
        #expect(group.ports(track: 2) == nil)
        #expect(group.ports(track: -1) == nil)
    }

    @Test func theTTLFieldReadsAndWritesBack() {
        let text = "RTP/AVP;multicast;destination=239.1.2.3;port=5000-5001;ttl=16"
        let header = TransportHeader(text)
        #expect(header.ttl == 16)
        #expect(header.serialized() == text)
        #expect(TransportHeader("RTP/AVP;multicast;ttl=256").ttl == nil)
        #expect(TransportHeader("RTP/AVP;multicast;ttl=-1").ttl == nil)
    }
}
