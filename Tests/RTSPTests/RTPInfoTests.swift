import Testing

@testable import RTSP

/// RTP-Info as cameras write it (the headers of Fixtures/cameras, and the spellings issue 19
/// lists): read where it can be, never a failure, matched to the tracks by URL or else by order.
@Suite struct RTPInfoTests {
    @Test func reolinksTwoStreamsWithTheirSSRCs() throws {
        let info = RTPInfo(
            "url=trackID=1;seq=16852;rtptime=1070938629;ssrc=dcc4a0d8,url=trackID=2;seq=39409;rtptime=3075976528;ssrc=9fc9fff8"
        )
        #expect(info.entries.count == 2)
        #expect(info.entries[0].url == "trackID=1")
        #expect(info.entries[0].sequenceNumber == 16852)
        #expect(info.entries[0].rtpTime == 1_070_938_629)
        #expect(info.entries[0].ssrcs == [0xDCC4_A0D8])  // not decimal digits: one reading
        let base = try RTSPURL("rtsp://192.168.5.206/h264Preview_01_main/")
        let matched = info.entries(for: [base.resolving("trackID=1"), base.resolving("trackID=2")], base: base)
        #expect(matched.map { $0?.sequenceNumber } == [16852, 39409])
    }

    /// Hikvision: an absolute URL with a query; GW4089IP: a URL of another path than the track's, for the
    /// one track (matched by position).
    @Test func absoluteURLsAndAnotherPathsURL() throws {
        let hikvision = RTPInfo(
            "url=rtsp://192.168.5.106:554/Streaming/Channels/101/trackID=1?transportmode=unicast&profile=Profile_1;seq=24104;rtptime=1270711678"
        )
        let control = try RTSPURL(
            "rtsp://192.168.5.106:554/Streaming/Channels/101/trackID=1?transportmode=unicast&profile=Profile_1")
        #expect(hikvision.entries(for: [control], base: control).first??.sequenceNumber == 24104)
        let gw = RTPInfo("url=rtsp://192.168.1.110:5050/H264/video;seq=271;rtptime=1621990950")
        let track = try RTSPURL("rtsp://192.168.1.110:5050/H264?channel=1&subtype=0/trackID=0")
        #expect(gw.entries(for: [track], base: track).first??.rtpTime == 1_621_990_950)
    }

    /// Spaces, a trailing ';', negative or overflowing numbers, decimal SSRCs, unknown fields: each read or
    /// left nil, none fatal.
    @Test func oddSpellingsAreReadOrLeftOut() {
        let info = RTPInfo(
            " url = trackID=1 ; seq = 7 ; rtptime=-3; ssrc=305419896 ; extra ;, url=trackID=2;seq=70000;")
        #expect(info.entries.count == 2)
        #expect(info.entries[0].url == "trackID=1")
        #expect(info.entries[0].sequenceNumber == 7)
        #expect(info.entries[0].rtpTime == nil)
        #expect(info.entries[0].ssrcs == [305_419_896])  // nine digits: no hex reading fits 32 bits
        #expect(RTPInfo("url=x;ssrc=12345678").entries.first?.ssrcs == [0x1234_5678, 12_345_678])
        #expect(info.entries[1].sequenceNumber == nil)
        #expect(RTPInfo("").entries.isEmpty)
        #expect(RTPInfo(";;,=").entries.allSatisfy { $0.url == nil && $0.ssrcs.isEmpty })
    }
}
