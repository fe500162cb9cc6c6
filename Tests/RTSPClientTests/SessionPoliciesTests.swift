@_spi(SansIO) import RTSP
import RTP
import Testing

@testable import RTSPClient

/// The driver's policies, without sockets: when a session gives up UDP for TCP, how many redirects it follows,
/// and how long it lingers after the server's BYE.
@Suite struct SessionPoliciesTests {
    @Test func autoPlaysUDPAndFallsBackOnceToTCP() {
        var policy = TransportPolicy(asked: .auto)
        #expect(policy.current == .udp && policy.mayFallBack && !policy.fellBackToTCP)
        policy.fallBack()
        #expect(policy.current == .tcp && !policy.mayFallBack && policy.fellBackToTCP)
    }

    @Test func anAskedTransportIsKeptUnlessTheServerChangesIt() {
        var udp = TransportPolicy(asked: .udp)
        #expect(!udp.mayFallBack)  // silence on asked-for UDP is an error, not a reason to switch
        udp.playing(interleaved: false, hasUDPPorts: true)
        #expect(udp.current == .udp && !udp.fellBackToTCP)
        // The server answered 461 and the machine asked for TCP: PLAY's tracks are interleaved.
        udp.playing(interleaved: true, hasUDPPorts: true)
        #expect(udp.current == .tcp && udp.fellBackToTCP)

        var tcp = TransportPolicy(asked: .tcp)
        tcp.playing(interleaved: true, hasUDPPorts: false)
        #expect(tcp.current == .tcp && !tcp.fellBackToTCP)

        var multicast = TransportPolicy(asked: .multicast)
        #expect(multicast.mayFallBack)
        multicast.playing(interleaved: false, hasUDPPorts: false)  // multicast binds no port pairs
        #expect(multicast.current == .multicast)
        multicast.playing(interleaved: true, hasUDPPorts: false)
        #expect(multicast.current == .tcp && multicast.fellBackToTCP)
    }

    @Test func redirectsAreFollowedUpToTheLimitAndCountedAgainAfterAReset() throws {
        let target = try RTSPURL("rtsp://camera.example/next")
        var policy = RedirectPolicy(limit: 2)
        let first = policy.redirect(to: target)
        let second = policy.redirect(to: target)
        #expect(first == nil && second == nil)
        let third = policy.redirect(to: target)
        let refusal = try #require(third)
        #expect(refusal.code == .tooManyRedirects)
        #expect("\(refusal)".contains("more than 2 redirects; the last went to rtsp://camera.example/next"))
        policy.reset()
        let afterReset = policy.redirect(to: target)
        #expect(afterReset == nil)
    }

    @Test func afterEveryBYETheSessionEndsOnceQuietOrAtTheLatestAfterThreeSeconds() {
        let bye = ArrivalTime(nanoseconds: 100_000_000_000)
        let linger = ByeLinger(bye: bye)
        // Packets still coming just after the BYE (RTP behind RTCP): it waits.
        #expect(!linger.ends(now: bye + .milliseconds(300), silence: .milliseconds(10)))
        #expect(!linger.ends(now: bye + .seconds(2), silence: .milliseconds(299)))
        // Quiet for 300 ms: it ends.
        #expect(linger.ends(now: bye + .milliseconds(300), silence: .milliseconds(300)))
        // A stream that never goes quiet after its BYE still ends 3 s after it.
        #expect(!linger.ends(now: bye + (.seconds(3) - .milliseconds(1)), silence: .zero))
        #expect(linger.ends(now: bye + .seconds(3), silence: .zero))
    }
}
