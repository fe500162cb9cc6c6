import Foundation
import H26x
import MediaPipeline
import MetricsTestKit
import RTP
import RTSP
import RTSPClient
import RTSPServer
import SDP
import Synchronization
import TestSupport
import Testing

/// The server's multicast on the public API, in process: every viewer that asks for multicast is a member of the
/// path's group, and each packet goes out once for all of them. Loopback takes no multicast group here (its device has
/// no MULTICAST flag), so the server and its viewers use this host's end of a test namespace's veth pair (what the
/// server sends there is looped back to this host's members, and goes nowhere but into that namespace).
@Suite(.serialized, .enabled(if: TestNamespace.available, "a veth pair needs root and iproute2"))
struct ServerMulticastTests {
    /// A group of this process's own (its port from the process id: two suites at once do not share one).
    static let group = MulticastGroup(
        address: "239.255.77.\(1 + getpid() % 200)", port: UInt16(20000 + 2 * (getpid() % 4000)))!

    /// A server listening and sending multicast on this host's end of `namespace`'s pair.
    static func started(_ source: MediaSource, namespace: TestNamespace, metrics: TestMetrics) async throws
        -> (RTSPServer, String)
    {
        let host = namespace.hostAddress
        var configuration = RTSPServer.Configuration(host: host, port: 0)
        configuration.multicastInterface = host
        configuration.metricsFactory = metrics
        let server = RTSPServer(configuration: configuration)
        server.mount(source, at: "/live", multicast: group)
        try await server.start()
        return (server, "rtsp://\(host):\(try #require(server.port))/live")
    }

    /// Two viewers take the same 60 pictures from one stream: the source has one subscriber (the group) for both,
    /// and keeps it until the last viewer leaves; the server counts two multicast viewers and each packet's bytes
    /// once (what one viewer received).
    @Test func twoViewersTakeOneStreamThatEndsWithTheLast() async throws {
        let format = MediaFormat.video(VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1))
        let source = try MediaSource(formats: [format])
        let namespace = try TestNamespace("rtpmcv\(getpid() % 10000)", subnet: Int(getpid() % 25) + 225)
        defer { withExtendedLifetime(namespace) {} }
        let metrics = TestMetrics()
        let (server, url) = try await Self.started(source, namespace: namespace, metrics: metrics)
        func viewers(_ transport: String) throws -> Double? {
            try metrics.expectMeter("rtsp_server_viewers", [("path", "/live"), ("transport", transport)]).lastValue
        }
        defer { Task { await server.stop() } }
        let options = RTSPSessionOptions(transport: .multicast)
        let first = try await RTSPSession.connect(to: url, options: options)
        let second = try await RTSPSession.connect(to: url, options: options)
        #expect(server.sessionCount == 2)
        #expect(source.subscriberCount == 1, "each viewer was sent a stream of its own")
        #expect(try viewers("multicast") == 2 && viewers("udp") == 0 && viewers("tcp") == 0)
        let firstUnits = try first.accessUnits()
        let secondUnits = try second.accessUnits()
        let pictures = 60
        let pusher = Task {
            for index in 0..<pictures {
                source.push(.video(RTSPServerTests.picture(index, size: 3000 + index * 97)))
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        func take(_ units: RTSPAccessUnits) async throws -> [AccessUnit] {
            var received: [AccessUnit] = []
            for try await unit in units {
                received.append(unit)
                if received.count == pictures { break }
            }
            return received
        }
        async let fromFirst = take(firstUnits)
        async let fromSecond = take(secondUnits)
        let (a, b) = try await (fromFirst, fromSecond)
        try await pusher.value
        for received in [a, b] {
            #expect(received.count == pictures)
            for (index, unit) in received.enumerated() {
                let sent = RTSPServerTests.picture(index, size: 3000 + index * 97)
                #expect(unit.nalUnits.map { Array($0.bytes) } == sent.nalUnits.map { Array($0.bytes) }, "unit \(index)")
                #expect(unit.isComplete)
            }
        }
        let statistics = [await first.statistics(), await second.statistics()]
        #expect(statistics.allSatisfy { $0.transport == .multicast && $0.tracks.first?.lost == 0 })
        let bytes = statistics.map { $0.tracks.first?.bytes ?? 0 }
        #expect(bytes[0] == bytes[1] && bytes[0] > 180_000)
        #expect(try metrics.expectCounter("rtsp_server_bytes_sent_total", [("path", "/live")]).totalValue == bytes[0])
        await first.teardown()
        #expect(try await eventually { server.sessionCount == 1 })
        #expect(source.subscriberCount == 1, "the group stopped while a viewer was still in it")
        await second.teardown()
        #expect(try await eventually { source.subscriberCount == 0 }, "the group is still sent with no viewer")
        #expect(try viewers("multicast") == 0)
    }

    /// A mount without a group refuses multicast (461, with what it sends: ServerMulticastSetupTests), and this
    /// library's client, asked for multicast, plays it over TCP instead.
    @Test func aPathWithoutAGroupIsPlayedOverTCPInstead() async throws {
        let source = try MediaSource(video: .h264)
        let server = RTSPServer(configuration: RTSPServer.Configuration(host: "127.0.0.1", port: 0))
        server.mount(source, at: "/live")
        try await server.start()
        defer { Task { await server.stop() } }
        let url = "rtsp://127.0.0.1:\(try #require(server.port))/live"
        let session = try await RTSPSession.connect(to: url, options: RTSPSessionOptions(transport: .multicast))
        let statistics = await session.statistics()
        #expect(statistics.transport == .tcp)
        #expect(statistics.fellBackToTCP)
        await session.teardown()
    }

    /// A multicast interface that is not an IPv4 address of this host stops the server's start, saying why.
    @Test func aWrongInterfaceStopsTheStartWithTheReason() async throws {
        for interface in ["not-an-address", "::1", "203.0.113.7"] {
            var configuration = RTSPServer.Configuration(host: "127.0.0.1", port: 0)
            configuration.multicastInterface = interface
            let server = RTSPServer(configuration: configuration)
            let error = await #expect(throws: RTSPServerError.self) { try await server.start() }
            #expect(error?.code == .multicastFailed, "\(interface)")
            #expect(error?.reason.contains(interface) == true, "\(String(describing: error))")
            #expect(server.port == nil)
        }
    }

    private func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<100 where !condition() { try await Task.sleep(for: .milliseconds(50)) }
        return condition()
    }
}
