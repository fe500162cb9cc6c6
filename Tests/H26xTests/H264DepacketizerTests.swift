import RTP
import Testing

@testable import H26x

@Suite struct H264DepacketizerTests {
    typealias P = Packets

    /// What an SDP's `sprop-interleaving-depth` and `sprop-deint-buf-req` (or H.265's) may ask is bounded:
    /// 32,767 NAL units and 64 MiB held, whatever the numbers (2^63 - 1 once set the buffer free of bounds).
    @Test func deinterleavingSettingsFromAPeerAreBounded() {
        let hostile = DepacketizerConfiguration(deinterleavingDepth: .max, deinterleavingBytes: .max)
        #expect(hostile.deinterleavingDepth == 32_767)
        #expect(hostile.deinterleavingBytes == DepacketizerConfiguration.maxDeinterleavingBytes)
        let none = DepacketizerConfiguration(deinterleavingDepth: -5, deinterleavingBytes: -5)
        #expect(none.deinterleavingDepth == 0 && none.deinterleavingBytes == 1)
    }

    @Test func singleNALUnitsEndAtTheMarker() {
        let (units, _) = P.h264([
            P.rtp(1, ts: 3000, P.sps), P.rtp(2, ts: 3000, P.pps), P.rtp(3, ts: 3000, marker: true, P.idr()),
            P.rtp(4, ts: 6000, marker: true, P.slice()),
        ])
        #expect(units.count == 2)
        #expect(units[0].nals == [P.sps, P.pps, P.idr()])
        #expect(units[0].keyframe)
        #expect(units[0].parameterSetsChanged)
        #expect(units[0].lost == 0)
        #expect(units[1].nals == [P.slice()])
        #expect(!units[1].keyframe)
        #expect(units[1].timestamp == units[0].timestamp + 3000)
    }

    @Test func stapAUnpacksEveryNALUnit() {
        let (units, _) = P.h264([P.rtp(1, ts: 0, P.stapA([P.sps, P.pps])), P.rtp(2, ts: 0, marker: true, P.idr())])
        #expect(units.map(\.nals) == [[P.sps, P.pps, P.idr()]])
    }

    @Test func fuAFragmentsAreJoinedIntoOneNALUnit() {
        let nal = P.idr(1000)
        let fragments = P.fuA(nal, size: 300)
        #expect(fragments.count == 4)
        let packets = fragments.enumerated().map { i, f in P.rtp(UInt16(i), ts: 0, marker: i == 3, f) }
        #expect(P.h264(packets).0.map(\.nals) == [[nal]])
    }

    @Test func aLostFragmentDropsItsNALUnitAndFlagsTheAccessUnit() {
        let big = P.idr(900)
        let f = P.fuA(big, size: 300)
        let (units, stats) = P.h264([
            P.rtp(1, ts: 0, P.sps), P.rtp(2, ts: 0, f[0]), nil, P.rtp(4, ts: 0, marker: true, f[2]),
            P.rtp(5, ts: 3000, marker: true, P.slice()),
        ])
        #expect(units.count == 2)
        #expect(units[0].nals == [P.sps])  // the IDR is gone, never spliced from its two outer fragments
        #expect(units[0].lost == 1)
        #expect(units[1].lost == 0)
        #expect(stats.droppedNALUnits == 1)
    }

    @Test func aLostMarkerPacketIsChargedToThePictureItEnded() {
        let (units, _) = P.h264([
            P.rtp(1, ts: 0, marker: true, P.slice()), P.rtp(2, ts: 3000, P.slice(first: true)), nil, nil,
            P.rtp(5, ts: 6000, marker: true, P.slice()),
        ])
        // Packet 3 would have carried the marker of picture 3000; packet 4 began picture 6000.
        #expect(units.map(\.lost) == [0, 1, 1])
        #expect(units.map(\.lost).reduce(0, +) == 2)
    }

    @Test func aTimestampChangeEndsTheAccessUnitWithoutAMarker() {
        let (units, _) = P.h264([
            P.rtp(1, ts: 0, P.idr()), P.rtp(2, ts: 3000, P.slice()), P.rtp(3, ts: 6000, P.slice()),
        ])
        #expect(units.count == 3)
    }

    @Test func theFirstSliceOfAPictureEndsTheAccessUnitWithinOneTimestamp() {
        // A camera that never sets the marker and repeats timestamps: the slice header decides.
        let (units, _) = P.h264([
            P.rtp(1, ts: 0, P.slice(first: true)), P.rtp(2, ts: 0, P.slice(first: false)),
            P.rtp(3, ts: 0, P.slice(first: true, fill: 0x22)),
        ])
        #expect(units.map { $0.nals.count } == [2, 1])
    }

    @Test func parameterSetsBetweenSlicesOfOnePictureStayInIt() {
        // GStreamer's rtph264pay config-interval=-1 repeats SPS/PPS before every IDR slice.
        let second = [0x65, 0x40] + [UInt8](repeating: 7, count: 10)  // first_mb_in_slice != 0
        let (units, stats) = P.h264([
            P.rtp(1, ts: 0, P.sps), P.rtp(2, ts: 0, P.pps), P.rtp(3, ts: 0, P.idr()), P.rtp(4, ts: 0, P.sps),
            P.rtp(5, ts: 0, P.pps), P.rtp(6, ts: 0, marker: true, second),
        ])
        #expect(units.count == 1)
        #expect(units[0].nals.count == 6)
        #expect(stats.quirks == 1)
    }

    @Test func quirkFUWithStartAndEndBitsIsACompleteNALUnit() {
        let nal = P.idr(50)
        let packet: [UInt8] = [0x7C, 0xC5] + nal.dropFirst()
        let (units, stats) = P.h264([P.rtp(1, ts: 0, marker: true, packet)])
        #expect(units.map(\.nals) == [[nal]])
        #expect(stats.quirks == 1)
    }

    @Test func quirkEmptyFragmentsAreHarmless() {
        let nal = P.idr(100)
        var f = P.fuA(nal, size: 60)
        f.insert([0x7C, 0x05], at: 1)  // a middle fragment with no data
        let packets = f.enumerated().map { i, p in P.rtp(UInt16(i), ts: 0, marker: i == f.count - 1, p) }
        #expect(P.h264(packets).0.map(\.nals) == [[nal]])
    }

    @Test func quirkStartCodesInsideAPayloadSplitIt() {
        let payload = [0, 0, 0, 1] + P.sps + [0, 0, 1] + P.pps + [0, 0, 0, 1] + P.idr()
        let (units, _) = P.h264([P.rtp(1, ts: 0, marker: true, payload)])
        #expect(units.map(\.nals) == [[P.sps, P.pps, P.idr()]])
    }

    @Test func quirkSeveralNALUnitsInsideOneFU() {
        let joined = P.sps + [0, 0, 1] + P.pps
        let fragments = P.fuA(joined, size: 8)
        let packets = fragments.enumerated().map { i, p in P.rtp(UInt16(i), ts: 0, p) }
        let (units, _) = P.h264(packets + [P.rtp(UInt16(fragments.count), ts: 0, marker: true, P.idr())])
        #expect(units.map(\.nals) == [[P.sps, P.pps, P.idr()]])
    }

    /// A start code cut by fragment boundaries (at every point, for these sizes; across three fragments
    /// for size 1) is found.
    @Test(arguments: 1...6)
    func quirkAStartCodeAcrossFragmentsIsFound(size: Int) {
        let joined = P.sps + [0, 0, 1] + P.pps
        let fragments = P.fuA(joined, size: size)
        let packets = fragments.enumerated().map { i, p in P.rtp(UInt16(i), ts: 0, p) }
        let (units, _) = P.h264(packets + [P.rtp(UInt16(fragments.count), ts: 0, marker: true, P.idr())])
        #expect(units.map(\.nals) == [[P.sps, P.pps, P.idr()]])
    }

    /// The same in long fragments, where the scan that copies them into the access unit takes whole vector
    /// steps: a start code at each position of a 200-byte stretch, in fragments of 64, 100 and 1000 bytes.
    @Test(arguments: [64, 100, 1000])
    func quirkAStartCodeInsideALongFragmentIsFound(size: Int) {
        let slice = P.slice(1200, fill: 0x5A)
        for position in 120..<320 {
            var joined = slice
            joined.insert(contentsOf: [0, 0, 1] + P.pps, at: position)
            let fragments = P.fuA(joined, size: size)
            let packets = fragments.enumerated().map { i, p in
                P.rtp(UInt16(i), ts: 0, marker: i == fragments.count - 1, p)
            }
            let nals = P.h264(packets).0.map(\.nals)
            #expect(nals == [[Array(slice[..<position]), P.pps + slice[position...]]], "start code at \(position)")
        }
    }

    /// Reolink RLC-822A stamps the AUD, SPS, PPS and SEI before a keyframe with the previous picture's
    /// time: they belong to the picture that follows, not to an access unit of their own (94 access units
    /// for 90 pictures, and 4 decoder errors, before).
    @Test func quirkParameterSetsStampedWithThePreviousPicturesTimeJoinTheNextPicture() {
        let aud: [UInt8] = [0x09, 0x10]
        let sei: [UInt8] = [0x06, 0x05, 0x01, 0x00, 0x80]
        let (units, _) = P.h264([
            P.rtp(1, ts: 3000, marker: true, P.slice()),
            P.rtp(2, ts: 3000, aud), P.rtp(3, ts: 3000, P.sps), P.rtp(4, ts: 3000, P.pps), P.rtp(5, ts: 3000, sei),
            P.rtp(6, ts: 6000, marker: true, P.idr()),
            P.rtp(7, ts: 9000, marker: true, P.slice()),
        ])
        #expect(units.map(\.nals) == [[P.slice()], [aud, P.sps, P.pps, sei, P.idr()], [P.slice()]])
        #expect(units.map(\.timestamp) == [units[0].timestamp, units[0].timestamp + 3000, units[0].timestamp + 6000])
        #expect(units.map(\.keyframe) == [false, true, false])
    }

    /// A stream cut (a recording's duration, a session's end) after the AUD and parameter sets of the next
    /// picture: they are no access unit (FFmpeg: "missing picture in access unit"), and are counted as
    /// dropped. Where a packet was lost, the picture may be what was lost: the unit is still given, with
    /// its loss.
    @Test func nalUnitsBeforeAPictureThatNeverCameAreNoAccessUnit() {
        let aud: [UInt8] = [0x09, 0x10]
        let (units, stats) = P.h264([
            P.rtp(1, ts: 3000, marker: true, P.idr()), P.rtp(2, ts: 6000, aud), P.rtp(3, ts: 6000, P.sps),
        ])
        #expect(units.map(\.nals) == [[P.idr()]])
        #expect(stats.droppedNALUnits == 2)

        let (lossy, _) = P.h264([P.rtp(1, ts: 3000, marker: true, P.idr()), P.rtp(2, ts: 6000, aud), nil])
        #expect(lossy.map(\.nals) == [[P.idr()], [aud]])
        #expect(lossy.map(\.lost) == [0, 1])
    }

    @Test func quirkMarkerOnAParameterSetDoesNotEndTheAccessUnit() {
        let (units, _) = P.h264([
            P.rtp(1, ts: 0, marker: true, P.sps), P.rtp(2, ts: 0, marker: true, P.pps),
            P.rtp(3, ts: 0, marker: true, P.idr()),
        ])
        #expect(units.map(\.nals) == [[P.sps, P.pps, P.idr()]])
    }

    /// Tiandy cameras change the type in FU-A continuation fragments (issue 19: every frame was dropped as
    /// damaged, where GStreamer decoded all 90): the NAL unit keeps the start fragment's type, whole.
    @Test func quirkFUTypeChangingMidNALKeepsTheStartFragmentsType() {
        var f = P.fuA(P.idr(200), size: 80)
        f[1][1] = f[1][1] & 0xE0 | 1  // the middle fragment claims type 1
        f[2][1] = f[2][1] & 0xE0 | 7  // the last one type 7
        let packets = f.enumerated().map { i, p in P.rtp(UInt16(i), ts: 0, p) }
        let (units, stats) = P.h264(packets + [P.rtp(9, ts: 0, marker: true, P.slice())])
        #expect(units.map(\.nals) == [[P.idr(200)], [P.slice()]])  // the slice begins the next picture
        #expect(units.first?.keyframe == true)
        #expect(units.first?.lost == 0)
        #expect(stats.quirks == 2)
        #expect(stats.droppedNALUnits == 0)
    }

    @Test func quirkFragmentWithoutEndBitIsClosedByTheMarker() {
        var f = P.fuA(P.idr(200), size: 80)
        f[2][1] &= ~0x40  // the last fragment lacks its end bit but carries the marker
        let packets = f.enumerated().map { i, p in P.rtp(UInt16(i), ts: 0, marker: i == 2, p) }
        #expect(P.h264(packets).0.map(\.nals) == [[P.idr(200)]])
    }

    @Test(arguments: [[UInt8]([0x78, 0x00, 0x50, 0x67]), [0x00, 1, 2], [0x7E, 1], [0x7F], [0x7C], [0x7A, 1, 2]])
    func malformedPayloadsAreCountedNotFatal(payload: [UInt8]) {
        let (units, stats) = P.h264([P.rtp(1, ts: 0, payload), P.rtp(2, ts: 0, marker: true, P.idr())])
        #expect(stats.malformedPackets >= 1)
        #expect(units.last?.nals.last == P.idr())
    }

    @Test func aNALUnitOverTheLimitIsDropped() {
        let f = P.fuA(P.idr(3000), size: 1000)
        let packets = f.enumerated().map { i, p in P.rtp(UInt16(i), ts: 0, p) }
        let (units, _) = P.h264(
            packets + [P.rtp(5, ts: 0, marker: true, P.slice(first: false))],
            configuration: .init(maxNALSize: 2000))
        #expect(units.map(\.nals) == [[P.slice(first: false)]])
        #expect(units.first?.lost ?? 0 > 0)
    }

    @Test func timestampsKeepGrowingAcrossTheWrap() {
        let (units, _) = P.h264([
            P.rtp(1, ts: UInt32.max - 1000, marker: true, P.idr()), P.rtp(2, ts: 2000, marker: true, P.slice()),
        ])
        #expect(units[1].timestamp == units[0].timestamp + 3001)
    }

    @Test func waitingForAKeyframeAfterLoss() {
        let (units, stats) = P.h264(
            [
                P.rtp(1, ts: 0, marker: true, P.idr()), nil, P.rtp(3, ts: 6000, marker: true, P.slice()),
                P.rtp(4, ts: 9000, marker: true, P.slice()), P.rtp(5, ts: 12000, marker: true, P.idr()),
            ], configuration: .init(waitForKeyframeAfterLoss: true))
        #expect(units.map(\.timestamp).map { $0 - units[0].timestamp } == [0, 12000])
        #expect(stats.skippedAccessUnits == 2)
    }
}
