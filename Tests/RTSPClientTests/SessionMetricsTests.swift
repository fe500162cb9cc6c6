import Foundation
import MetricsTestKit
import RTSPClient
import TestSupport
import Testing

/// A session's metrics (swift-metrics, read through MetricsTestKit's factory) against a real server whose RTP
/// loses every 25th packet on the way (the chaos proxy): they must equal the session's own statistics, and
/// those must equal what tshark reads in a capture of the same connection.
@Suite(.serialized) struct SessionMetricsTests {
    @Test func metricsEqualTheStatisticsAndTsharksCountUnderLoss() async throws {
        let server = try await RealServer(["--frames", "150", "--rtcp-interval", "500"])
        defer { server.stop() }
        let proxy = try await ChaosProxy(to: server.port, dropEvery: 25)
        let capture = try await LoopbackCapture(port: proxy.port)
        let metrics = TestMetrics()
        var options = RTSPSessionOptions()
        options.metricsName = "door"
        options.metricsFactory = metrics
        let session = try await RTSPSession.connect(to: "rtsp://127.0.0.1:\(proxy.port)/test", options: options)
        var units = 0
        var damaged = 0
        for try await unit in try session.accessUnits() {  // to the server's BYE after its 150 pictures
            units += 1
            if unit.lostPackets > 0 { damaged += 1 }
        }
        let statistics = await session.statistics()
        try await capture.stop()

        // What reached the client, by tshark: every RTP sequence number of the video channel.
        let fields = try await runTool(
            "/usr/bin/tshark",
            [
                "-r", capture.path, "-d", "tcp.port==\(proxy.port),rtsp", "-Y", "rtp && tcp.srcport==\(proxy.port)",
                "-T", "fields", "-e", "rtp.seq", "-e", "rtp.p_type",
            ])
        var sequences: [Int] = []
        for line in fields.split(separator: "\n") {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            let numbers = columns[0].split(separator: ",").compactMap { Int($0) }
            let types = columns.count > 1 ? columns[1].split(separator: ",").compactMap { Int($0) } : []
            for (index, number) in numbers.enumerated() where index >= types.count || types[index] == 96 {
                sequences.append(number)
            }
        }
        var extended: [Int] = []
        for number in sequences {  // unwrapped across 65535 → 0
            guard let last = extended.last else {
                extended.append(number)
                continue
            }
            let step = (number - last % 65536 + 65536 + 32768) % 65536 - 32768
            extended.append(last + step)
        }
        let received = extended.count
        let expected = (extended.max() ?? 0) - (extended.min() ?? 0) + 1
        let track = try #require(statistics.tracks.first)
        #expect(received > 100)
        #expect(expected - received >= received / 30)  // the proxy's loss showed
        #expect(track.packets == UInt64(received))
        #expect(track.lost == Int64(expected - received))
        #expect(damaged > 0)

        let dimensions = [("session", "door"), ("track", "0")]
        #expect(try metrics.expectCounter("rtsp_client_packets_total", dimensions).totalValue == Int64(track.packets))
        #expect(try metrics.expectCounter("rtsp_client_bytes_total", dimensions).totalValue == Int64(track.bytes))
        #expect(try metrics.expectGauge("rtsp_client_lost_packets", dimensions).lastValue == Double(track.lost))
        #expect(try metrics.expectCounter("rtsp_client_units_total", dimensions).totalValue == Int64(units))
        #expect(
            try metrics.expectCounter("rtsp_client_sender_reports_total", dimensions).totalValue
                == Int64(track.senderReports))
        #expect(track.senderReports > 0)
        let offset = try #require(track.senderClockOffset)
        #expect(offset > .seconds(-1) && offset < .seconds(1))  // the server's clock is this machine's
        #expect(
            try metrics.expectGauge("rtsp_client_jitter_seconds", dimensions).lastValue
                == track.jitterMilliseconds / 1000)
        #expect(try metrics.expectGauge("rtsp_client_playing", [("session", "door")]).lastValue == 0)  // ended
        #expect(track.bytes > track.packets * 12)
    }

    /// The real server hangs for 3 s (SIGSTOP, then SIGCONT): the session's events tell the stall once its
    /// threshold has passed and the recovery when media returns, with the silence and the gap measured; the
    /// session does not break (its inactivity timeout is longer), and its metrics say it plays throughout.
    @Test func aStallAndItsRecoveryAreToldWithTheirTimes() async throws {
        let server = try await RealServer(["--frames", "100000", "--lifetime", "120"])
        defer { server.stop() }
        let metrics = TestMetrics()
        var options = RTSPSessionOptions()
        options.stallThreshold = .milliseconds(800)
        options.inactivityTimeout = .seconds(20)
        options.metricsName = "hang"
        options.metricsFactory = metrics
        let session = try await RTSPSession.connect(to: server.url, options: options)
        let told = Task {
            var events: [(RTSPSessionEvent, ContinuousClock.Instant)] = []
            for await event in session.events { events.append((event, .now)) }
            return events
        }
        var iterator = try session.accessUnits().makeAsyncIterator()
        for _ in 0..<20 { _ = try await iterator.next() }
        let hung = ContinuousClock.now
        server.signal(SIGSTOP)
        try await Task.sleep(for: .seconds(3))
        let resumed = ContinuousClock.now  // before SIGCONT: the recovery may be told before this task runs again
        server.signal(SIGCONT)
        for _ in 0..<20 { _ = try await iterator.next() }
        await session.teardown()
        let events = await told.value

        let stalls = events.compactMap { event, at -> (Duration, ContinuousClock.Instant)? in
            if case .stalled(let silence) = event { (silence, at) } else { nil }
        }
        let recoveries = events.compactMap { event, at -> (Duration, ContinuousClock.Instant)? in
            if case .recovered(let gap) = event { (gap, at) } else { nil }
        }
        #expect(stalls.count == 1 && recoveries.count == 1, "\(events.map(\.0))")
        let (silence, stalledAt) = try #require(stalls.first)
        let (gap, recoveredAt) = try #require(recoveries.first)
        #expect(silence >= .milliseconds(800))
        #expect(stalledAt > hung && stalledAt < resumed)  // told during the hang, not after
        #expect(recoveredAt >= resumed)
        // The hang, and no more than the wait for it. The gap runs from the last packet read before the hang, and what
        // the server had written before SIGSTOP the kernel still delivers during it (RelayEventsTests saw 2.95 s).
        #expect(gap >= .milliseconds(2500) && gap < .seconds(20))
        #expect(!events.contains { if case .broke = $0.0 { true } else { false } })
        #expect(try metrics.expectCounter("rtsp_client_reconnects_total", [("session", "hang")]).totalValue == 0)
    }

    @Test func aSessionWithoutAMetricsNamePublishesNothing() async throws {
        let server = try await RealServer(["--frames", "30"])
        defer { server.stop() }
        let metrics = TestMetrics()
        var options = RTSPSessionOptions()
        options.metricsFactory = metrics
        let session = try await RTSPSession.connect(to: server.url, options: options)
        for try await _ in try session.accessUnits() {}
        #expect(metrics.counters.isEmpty)
        #expect(metrics.recorders.isEmpty)
    }
}
