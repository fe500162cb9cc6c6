import RTP
@_spi(SansIO) import RTSP
import Testing

/// Positions in a played recording from a PLAY answer's Range, RTP-Info and Scale, sans I/O.
@Suite struct PlaybackTimelineTests {
    let anchors: [Int: PlaybackTimeline.Anchor] = [
        0: .init(rtpTime: 4_294_960_000, clockRate: 90_000), 1: .init(rtpTime: 100, clockRate: 8000),
    ]

    @Test func nptPositionsFollowTheRTPClockAndTheScale() {
        let normal = PlaybackTimeline(start: .npt(start: 10, end: nil), scale: 1, anchors: anchors)
        // Across the RTP time's wrap: 2 s of 90 kHz after the anchor.
        #expect(normal.position(track: 0, rtpTimestamp: 4_294_960_000 &+ 180_000) == .npt(12))
        #expect(normal.position(track: 1, rtpTimestamp: 100 + 4000) == .npt(10.5))
        let fast = PlaybackTimeline(start: .npt(start: 10, end: nil), scale: 2, anchors: anchors)
        #expect(fast.position(track: 1, rtpTimestamp: 100 + 8000) == .npt(12))
        let backwards = PlaybackTimeline(start: .npt(start: 10, end: nil), scale: -1, anchors: anchors)
        #expect(backwards.position(track: 1, rtpTimestamp: 100 + 8000) == .npt(9))
        #expect(normal.position(track: 2, rtpTimestamp: 0) == nil)
        #expect(PlaybackTimeline(start: nil, scale: 1, anchors: anchors).position(track: 0, rtpTimestamp: 0) == nil)
    }

    @Test func clockPositionsAreUTCTimes() {
        let start = WallClockTime(ntp: 3_976_214_400 << 32)
        let timeline = PlaybackTimeline(start: .clock(start: start, end: nil), scale: 1, anchors: anchors)
        #expect(timeline.position(track: 1, rtpTimestamp: 100 + 8000 * 3) == .clock(start.adding(seconds: 3)))
    }
}
