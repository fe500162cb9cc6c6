import Foundation
import RTP
@testable import RTSPClient
import TestSupport
import Testing

/// Sustained loss told as session events: against a real server whose RTP loses every 25th packet on the way
/// (the chaos proxy), and the watch's windows alone.
@Suite struct LossEventsTests {
    /// 4 % lost all along, a 2 % threshold over 1 s windows: told lossy once, at about 4 %, and never clear.
    @Test func aLossyLinkIsToldOnceWithItsShare() async throws {
        let server = try await RealServer(["--frames", "150"])
        defer { server.stop() }
        let proxy = try await ChaosProxy(to: server.port, dropEvery: 25)
        var options = RTSPSessionOptions()
        options.lossThreshold = 0.02
        options.lossWindow = .seconds(1)
        let session = try await RTSPSession.connect(to: "rtsp://127.0.0.1:\(proxy.port)/test", options: options)
        let told = Task {
            var events: [RTSPSessionEvent] = []
            for await event in session.events { events.append(event) }
            return events
        }
        for try await _ in try session.accessUnits() {}  // to the server's BYE after its 150 pictures
        let events = await told.value
        let lossy = events.compactMap {
            if case .lossy(let track, let fraction) = $0 { (track, fraction) } else { nil }
        }
        #expect(lossy.count == 1, "\(events)")
        let (track, fraction) = try #require(lossy.first)
        // One in 25 of the packets sent: a window of a few dozen packets rounds that to one or two lost.
        #expect(track == 0 && fraction > 0.02 && fraction < 0.08, "\(fraction)")
        #expect(!events.contains { if case .lossCleared = $0 { true } else { false } }, "\(events)")
    }

    /// Lossy once past the threshold, clear after a whole window under it; a window without packets (a stall)
    /// and a track whose counts start again (a new session after a reconnect) say nothing.
    @Test func windowsDecideLossyAndClear() {
        var watch = LossWatch(threshold: 0.05, window: .seconds(1))
        func at(_ seconds: Double) -> ArrivalTime { ArrivalTime(nanoseconds: Int64(seconds * 1e9)) }
        func tracks(_ counts: (packets: UInt64, lost: Int64)...) -> [RTSPSessionStatistics.Track] {
            counts.map { count in
                var track = RTSPSessionStatistics.Track()
                track.packets = count.packets
                track.lost = count.lost
                return track
            }
        }
        #expect(watch.observe(tracks((0, 0), (0, 0)), now: at(0)).isEmpty)
        #expect(watch.observe(tracks((90, 10), (100, 0)), now: at(0.5)).isEmpty)  // not a whole window yet
        let first = watch.observe(tracks((90, 10), (100, 0)), now: at(1))
        #expect(first.count == 1)
        if case .lossy(1, _)? = first.first { Issue.record("track 1 lost nothing") }
        guard case .lossy(0, let fraction)? = first.first else {
            Issue.record("\(first)")
            return
        }
        #expect(abs(fraction - 0.1) < 1e-9)
        #expect(watch.observe(tracks((180, 20), (200, 0)), now: at(2)).isEmpty)  // still lossy: told once
        #expect(watch.observe(tracks((180, 20), (200, 0)), now: at(3)).isEmpty)  // nothing came: no verdict
        #expect(watch.observe(tracks((10, 0), (300, 0)), now: at(4)).isEmpty)  // track 0 started again
        let clear = watch.observe(tracks((110, 2), (400, 0)), now: at(5))  // 2 of 102 lost
        guard case .lossCleared(0)? = clear.first, clear.count == 1 else {
            Issue.record("\(clear)")
            return
        }
        let again = watch.observe(tracks((110, 2), (450, 50)), now: at(6))
        guard case .lossy(1, let share)? = again.first, again.count == 1 else {
            Issue.record("\(again)")
            return
        }
        #expect(abs(share - 0.5) < 1e-9)
    }
}
