import Foundation
import MediaPipeline
import MetricsTestKit
import RTSPClient
import RTSPServer
import SDP
import TestSupport
import Testing

/// The server's metrics (swift-metrics, read through MetricsTestKit's factory), against what its viewers — this
/// library's client, over TCP and over UDP — received by their own count.
@Suite(.serialized) struct ServerMetricsTests {
    @Test func viewersBytesAndWrongPasswordsAreCountedPerPath() async throws {
        let metrics = TestMetrics()
        let source = try MediaSource(formats: [
            .video(VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1))
        ])
        var configuration = RTSPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.metricsFactory = metrics
        configuration.authentication = ServerAuthentication(users: [Credentials(user: "alice", password: "wonder")])
        let server = RTSPServer(configuration: configuration)
        server.mount(source, at: "/front")
        try await server.start()
        let url = "rtsp://alice:wonder@127.0.0.1:\(try #require(server.port))/front"
        func viewers(_ transport: String) throws -> Double? {
            try metrics.expectMeter("rtsp_server_viewers", [("path", "/front"), ("transport", transport)]).lastValue
        }
        #expect(metrics.meters.isEmpty)  // a path has metrics once played

        let overTCP = try await RTSPSession.connect(to: url, options: RTSPSessionOptions(transport: .tcp))
        let overUDP = try await RTSPSession.connect(to: url, options: RTSPSessionOptions(transport: .udp))
        #expect(try viewers("tcp") == 1 && viewers("udp") == 1)
        let reading = [overTCP, overUDP].map { session in
            Task {
                var units = 0
                for try await _ in try session.accessUnits() { units += 1 }
                return units
            }
        }
        for index in 0..<40 {
            source.push(.video(RTSPServerTests.picture(index, size: 800 + index * 10)))
            try await Task.sleep(for: .milliseconds(5))
        }
        source.finish()
        let units = [try await reading[0].value, try await reading[1].value]
        let received = [await overTCP.statistics(), await overUDP.statistics()]
        #expect(units == [40, 40])
        #expect(received.allSatisfy { $0.tracks.first?.lost == 0 })
        let bytes = received.reduce(0) { $0 + ($1.tracks.first?.bytes ?? 0) }
        #expect(bytes > 40 * 800 * 2)
        // RTP bytes, headers included, without the interleaved framing: what each viewer counted.
        #expect(try metrics.expectCounter("rtsp_server_bytes_sent_total", [("path", "/front")]).totalValue == bytes)
        #expect(try metrics.expectCounter("rtsp_server_units_skipped_total", [("path", "/front")]).totalValue == 0)
        for _ in 0..<200 where try viewers("tcp") != 0 || viewers("udp") != 0 {
            try await Task.sleep(for: .milliseconds(10))  // the sessions' TEARDOWNs on their way
        }
        #expect(try viewers("tcp") == 0 && viewers("udp") == 0)

        let wrong = "rtsp://alice:wrong@127.0.0.1:\(try #require(server.port))/front"
        await #expect(throws: RTSPClientError.self) { try await RTSPSession.connect(to: wrong) }
        #expect(try metrics.expectCounter("rtsp_server_authentication_failures_total").totalValue >= 1)
        // Only a played path has metrics: none for the refused viewer's, nor any other.
        #expect(metrics.meters.allSatisfy { $0.dimensions.contains { $0 == ("path", "/front") } })
        await server.stop()
    }
}
