import Foundation
import RTP
@testable import RTSP
import Testing

/// Values an application or a peer can give that reached a trapping standard-library call (a negative count, a
/// conversion out of range, an overflow), found by reading every such call input reaches: each now gives a value,
/// or an error that says what is wrong.
@Suite struct ValuesThatTrappedTests {
    /// A range's npt bounds of any Double format (they are public: an application makes them); negative, huge
    /// and not-a-number ones are cut to the range a header can carry.
    @Test func anyNPTRangeFormats() {
        let cases: [(Double, String)] = [
            (-0.25, "npt=0.000-"), (1e300, "npt=1000000000000.000-"), (.nan, "npt=0.000-"),
            (.infinity, "npt=1000000000000.000-"),
            (12.3456, "npt=12.346-"),
        ]
        for (start, text) in cases {
            #expect(PlaybackRequest.Range.npt(start: start, end: nil).description == text, "\(start)")
        }
        #expect(PlaybackRequest.Range.npt(start: 0, end: -.infinity).description == "npt=0.000-0.000")
    }

    /// A clock= time past NTP's era (2036-02-07) has no NTP value: refused with the range it takes, not wrapped.
    @Test func aUTCTimePastTheNTPEraIsRefused() throws {
        #expect(UTCTime.parse("20360207T062815Z") != nil)
        #expect(UTCTime.parse("20360207T062816Z") == nil)
        #expect(UTCTime.parse("99991231T235959Z") == nil)
        let error = #expect(throws: RTSPClientError.self) {
            try PlaybackRequest.Range(parsing: "clock=99991231T235959Z-")
        }
        #expect(error?.reason.contains("2036") == true)
        #expect(UTCTime.format(WallClockTime(ntp: 0)) == "19000101T000000Z")
        #expect(UTCTime.format(WallClockTime(ntp: .max)) == "20360207T062815.999Z")
    }
}
