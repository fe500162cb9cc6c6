import Foundation
import RTP
import Testing

@Suite struct ArrivalTimeTests {
    /// `now()` reads a monotonic clock in nanoseconds: it never goes back, and 20 ms of sleep show as at
    /// least 20 ms (and, on any machine, as less than a minute).
    @Test func nowIsMonotonicNanoseconds() {
        let first = ArrivalTime.now()
        Thread.sleep(forTimeInterval: 0.02)
        let second = ArrivalTime.now()
        #expect(second - first >= .milliseconds(20))
        #expect(second - first < .seconds(60))
        #expect(first.nanoseconds > 0)
    }
}
