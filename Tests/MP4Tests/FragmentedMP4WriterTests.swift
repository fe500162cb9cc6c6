import Audio
import Foundation
import H26x
import MP4
import MediaPipeline
import RTP
import SDP
import Testing

/// The writer's boxes read back: every sample where its unit's timestamp puts it, fragments cut where they
/// should be, the sender's wall clock in each `prft`, damage and gaps handled. (That FFmpeg and GStreamer play
/// the files, frame for frame, is `RecordCommandTests` and the live recording tests.)
@Suite struct FragmentedMP4WriterTests {
    static let video: [(track: Int, format: MediaFormat)] = [(0, .video(VideoFormat(codec: .h264, payloadType: 96)))]

    /// A picture's size in the file: its NAL units, each after a 4-byte length.
    static func size(_ unit: AccessUnit) -> UInt32 {
        UInt32(unit.nalUnits.reduce(0) { $0 + 4 + $1.bytes.count })
    }

    /// B-frames: each picture is presented at its RTP timestamp (from the first), decode times rise, and
    /// fragments start at the keyframes that come after their half second.
    @Test func picturesArePresentedAtTheirTimestampsAndFragmentsStartAtKeyframes() throws {
        let units = try Recordings.units("h264-ffmpeg.pcap")
        let pictures = units.compactMap(\.accessUnit)
        let (output, writer) = Recordings.record(
            units, tracks: Self.video, configuration: .init(fragmentDuration: .milliseconds(500)))
        let samples = try #require(Recordings.times(output)[1])
        let first = try #require(pictures.first).timestamp
        #expect(samples.map(\.presentation) == pictures.map { Int64($0.timestamp - first) })
        #expect(pictures.map(\.timestamp) != pictures.map(\.timestamp).sorted())  // it has B-frames
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.decode < $1.decode })
        #expect(samples.map(\.sync) == pictures.map(\.isKeyframe))
        #expect(samples.map(\.size) == pictures.map(Self.size))
        let keyframes = pictures.filter(\.isKeyframe).count
        #expect(keyframes == 3)
        #expect(output.moofs.count == keyframes)
        for moof in output.moofs {
            let run = TrackRun(try #require(moof.find("traf/trun")))
            #expect(run.syncs.first == true)
        }
        #expect(output.initializations.count == 1)
        #expect(writer.statistics.videoSamples == pictures.count)
    }

    /// Without B-frames, a fragment also closes at any picture after twice its duration (a camera's long GOP
    /// is not lost whole when the process is killed); with keyframes a second apart and 200 ms fragments,
    /// every fragment starts at a keyframe or after one of 400 ms.
    @Test func withoutBFramesAFragmentClosesAtAnyPictureAfterTwiceItsDuration() throws {
        let units = try Recordings.units("h264-gst.pcap")
        let pictures = units.compactMap(\.accessUnit)
        #expect(pictures.map(\.timestamp) == pictures.map(\.timestamp).sorted())
        let (output, _) = Recordings.record(
            units, tracks: Self.video, configuration: .init(fragmentDuration: .milliseconds(200)))
        let samples = try #require(Recordings.times(output)[1])
        #expect(samples.map(\.decode) == pictures.map { Int64($0.timestamp - pictures[0].timestamp) })
        #expect(samples.allSatisfy { $0.decode == $0.presentation })
        let runs = try output.moofs.map { TrackRun(try #require($0.find("traf/trun"))) }
        var start = 0
        for (previous, run) in zip(runs, runs.dropFirst()) {
            let previousSpan = samples[start + previous.sizes.count - 1].decode - samples[start].decode
            start += previous.sizes.count
            #expect(run.syncs[0] || previousSpan >= 36_000, "a fragment starts mid-GOP after \(previousSpan) ticks")
        }
        #expect(runs.count > pictures.filter(\.isKeyframe).count + 2)
        #expect(runs.contains { !$0.syncs[0] })
    }

    /// Each fragment's `prft` gives the sender's wall clock of its first picture, at that picture's time.
    @Test func eachFragmentCarriesTheSendersWallClock() throws {
        let units = try Recordings.units("h264-ffmpeg.pcap")
        let pictures = units.compactMap(\.accessUnit)
        #expect(pictures.allSatisfy { $0.captureTime != nil })
        let (output, _) = Recordings.record(
            units, tracks: Self.video, configuration: .init(fragmentDuration: .milliseconds(500)))
        var index = 0
        for boxes in output.fragmentBoxes {
            let prft = try #require(boxes.first)
            #expect(prft.type == "prft")
            let run = TrackRun(try #require(boxes.first { $0.type == "moof" }?.find("traf/trun")))
            #expect(prft.field32(0) == 1)
            #expect(prft.field64(4) == pictures[index].captureTime?.ntp)
            #expect(prft.field64(12) == UInt64(pictures[index].timestamp - pictures[0].timestamp))
            index += run.sizes.count
        }
        #expect(index == pictures.count)
    }

    /// A picture that lost packets is left out with the pictures after it up to the next keyframe; with
    /// `keepsDamagedVideo` all are written.
    @Test func damagedPicturesAreLeftOutUpToTheNextKeyframe() throws {
        let units = try Recordings.units("h264-gst-dropped.pcap")
        let pictures = units.compactMap(\.accessUnit)
        var expected: [AccessUnit] = []
        var waiting = true
        for picture in pictures {
            if picture.lostPackets > 0 {
                waiting = true
            } else if picture.isKeyframe || !waiting {
                waiting = false
                expected.append(picture)
            }
        }
        #expect(expected.count < pictures.count && !expected.isEmpty)
        let (output, writer) = Recordings.record(units, tracks: Self.video)
        let samples = try #require(Recordings.times(output)[1])
        #expect(samples.map(\.size) == expected.map(Self.size))
        #expect(samples.map(\.presentation) == expected.map { Int64($0.timestamp - expected[0].timestamp) })
        #expect(writer.statistics.droppedVideo + writer.statistics.unitsBeforeStart == pictures.count - expected.count)
        let (kept, _) = Recordings.record(units, tracks: Self.video, configuration: .init(keepsDamagedVideo: true))
        let firstKeyframe = try #require(pictures.firstIndex { $0.isKeyframe })
        #expect(Recordings.times(kept)[1]?.count == pictures.count - firstKeyframe)
    }

    /// Another stream's parameter sets (a camera whose resolution was changed) start a new initialization
    /// segment, with the new stream's record.
    @Test func aChangeOfParameterSetsStartsANewInitializationSegment() throws {
        let first = try Recordings.units("h264-gst.pcap")
        var second = try Recordings.units("h264-yuv444-ffmpeg.pcap")
        if case .video(var unit) = second[0] {
            unit.isDiscontinuity = true
            second[0] = .video(unit)
        }
        let (output, writer) = Recordings.record(first + second, tracks: Self.video)
        #expect(output.initializations.count == 2)
        #expect(writer.statistics.segments == 2)
        let records = output.initializations.map {
            Box.read($0[...]).first { $0.type == "moov" }?.find("trak/mdia/minf/stbl/stsd/avc1")
        }
        #expect(records.count == 2 && records[0]?.body != records[1]?.body)
        #expect(writer.statistics.videoSamples == first.count + second.count)
    }

    /// A camera that flaps between two streams (GStreamer's and FFmpeg's parameter sets, about 3 s each, eight
    /// times): a change starts a new file at most every 10 s, the others stay in their file with their parameter
    /// sets in band. Before, each change made a file: one per picture for a camera that flaps at every keyframe.
    @Test func aStreamThatFlapsMakesAFileAtMostEveryTenSeconds() throws {
        let streams = [try Recordings.units("h264-gst.pcap"), try Recordings.units("h264-ffmpeg.pcap")]
        var units: [MediaUnit] = []
        for round in 0..<8 {
            var next = streams[round % 2]
            if round > 0, case .video(var unit) = next[0] {
                unit.isDiscontinuity = true
                next[0] = .video(unit)
            }
            units += next
        }
        let (output, writer) = Recordings.record(units, tracks: Self.video)
        // The start, the first change (at 3 s: FFmpeg's entry), and the first change 10 s after it (at 18 s: back
        // to GStreamer's); those at 6, 12 and 21 s stay in band (at 9 and 15 s the entry's own stream comes back).
        #expect(output.initializations.count == 3)
        #expect(writer.statistics.changesInBand == 3)
        #expect(writer.statistics.videoSamples == units.count)
        let flapping =
            try Recordings.units("h264-gst.pcap") + Recordings.units("h264-ffmpeg.pcap")
            + Recordings.units("h264-gst.pcap")
        let (everyChange, _) = Recordings.record(
            flapping, tracks: Self.video, configuration: .init(changeSegmentInterval: .zero))
        #expect(everyChange.initializations.count == 3)
    }

    /// A fragment closes when its samples reach the byte bound, wherever it is.
    @Test func aFragmentClosesAtItsByteBound() throws {
        let units = try Recordings.units("h264-gst.pcap")
        let bound = 20_000
        let (output, _) = Recordings.record(units, tracks: Self.video, configuration: .init(maxFragmentBytes: bound))
        let largest = units.compactMap(\.accessUnit).map { Int(Self.size($0)) }.max() ?? 0
        #expect(output.moofs.count > 10)
        for boxes in output.fragmentBoxes {
            let mdat = try #require(boxes.last)
            #expect(mdat.type == "mdat" && mdat.body.count < bound + largest)
        }
    }

    /// Audio that lost frames goes on at its own time: every frame at its timestamp, gaps and all.
    @Test func audioAfterALossGoesOnAtItsTimestamp() throws {
        let format = try #require(try Recordings.format("audio-aac-gst.sdp"))
        let units = try Recordings.units("audio-aac-gst-dropped.pcap", format: format)
        let frames = units.compactMap(\.audioFrame)
        let (output, _) = Recordings.record(units, tracks: [(0, format)])
        let samples = try #require(Recordings.times(output)[1])
        #expect(samples.map(\.decode) == frames.map { Int64($0.timestamp - frames[0].timestamp) })
        let gaps = zip(frames, frames.dropFirst()).filter { $1.timestamp - $0.timestamp > 1024 }.count
        #expect(gaps > 0)
        #expect(samples.map(\.size) == frames.map { UInt32($0.bytes.count) })
    }

    /// Audio alone: fragments by time, from the first frame.
    @Test func audioAloneIsCutByTime() throws {
        let format = try #require(try Recordings.format("audio-pcmu-gst.sdp"))
        let units = try Recordings.units("audio-pcmu-gst.pcap", format: format)
        let (output, writer) = Recordings.record(
            units, tracks: [(0, format)], configuration: .init(fragmentDuration: .milliseconds(500)))
        #expect(writer.statistics.audioSamples == units.count)
        #expect(output.moofs.count == 4)  // 2 s
        let entry = Box.read(output.initializations[0][...]).first { $0.type == "moov" }?.find(
            "trak/mdia/minf/stbl/stsd/ulaw")
        #expect(entry != nil)
    }

    /// Ten JPEG pictures 100 ms apart, and from 250 ms twenty 20 ms G.711 frames whose sender's wall clock
    /// is `audioClockOffset` seconds off the video's, in the order they were captured.
    static func pictureAndSound(audioClockOffset: Double) throws -> [MediaUnit] {
        let jpeg = try #require(Recordings.units("mjpeg-420-gst.pcap").first?.accessUnit?.jpeg)
        let start = WallClockTime(ntp: 0xE000_0000_0000_0000)
        var timed: [(seconds: Double, unit: MediaUnit)] = []
        for i in 0..<10 {
            var picture = AccessUnit(jpeg: Array(jpeg), timestamp: UInt64(1000 + 9000 * i), ssrc: 1)
            picture.captureTime = start.adding(seconds: Double(i) / 10)
            timed.append((Double(i) / 10, .video(picture)))
        }
        for i in 0..<20 {
            let seconds = 0.25 + Double(i) / 50
            var frame = AudioFrame(
                codec: .pcmu, timestamp: UInt64(555 + 160 * i), clockRate: 8000, sampleCount: 160,
                bytes: ArraySlice(repeating: 0xFF, count: 160), ssrc: 2)
            frame.captureTime = start.adding(seconds: seconds + audioClockOffset)
            frame.track = 1
            timed.append((seconds, .audio(frame)))
        }
        return timed.sorted { $0.seconds < $1.seconds }.map(\.unit)
    }

    static let pictureAndSoundTracks: [(track: Int, format: MediaFormat)] = [
        (0, .video(VideoFormat(codec: .jpeg, payloadType: 26))),
        (1, .audio(AudioFormat(codec: .pcmu, payloadType: 0, clockRate: 8000))),
    ]

    /// A track recorded beside video starts where its sender's wall clock puts it, from the first keyframe's.
    @Test func tracksLineUpOnTheSendersWallClock() throws {
        let (output, _) = Recordings.record(
            try Self.pictureAndSound(audioClockOffset: 0), tracks: Self.pictureAndSoundTracks)
        let times = Recordings.times(output)
        #expect(times[1]?.map(\.decode) == (0..<10).map { Int64(9000 * $0) })
        #expect(times[2]?.first?.decode == 2000)  // 250 ms at 8 kHz
        #expect(times[2]?.count == 20)
        let entry = Box.read(output.initializations[0][...]).first { $0.type == "moov" }?.find(
            "trak/mdia/minf/stbl/stsd/jpeg")
        #expect(entry.map { Array($0.body.dropFirst(24).prefix(4)) } == [0x01, 0x40, 0x00, 0xF0])  // 320x240
    }

    /// A sender whose audio reports another clock (an hour off): the audio starts where the video is when its
    /// first frame comes (the third picture's time), not an hour later.
    @Test func aWallClockFarFromTheStartIsNotBelieved() throws {
        let (output, _) = Recordings.record(
            try Self.pictureAndSound(audioClockOffset: 3600), tracks: Self.pictureAndSoundTracks)
        let times = Recordings.times(output)
        #expect(times[2]?.first?.decode == 1600)  // 200 ms (the third picture) at 8 kHz
        #expect(times[2]?.count == 20)
    }

    /// Two video tracks: the recording starts when both have had a keyframe; the first's pictures in
    /// between (its keyframe came before the second's) are left out up to its next keyframe.
    @Test func withTwoVideoTracksTheRecordingStartsWhenBothHaveAKeyframe() throws {
        let h264 = try Recordings.units("h264-gst.pcap").compactMap(\.accessUnit)
        let jpeg = try #require(Recordings.units("mjpeg-420-gst.pcap").first?.accessUnit?.jpeg)
        var units: [MediaUnit] = []
        for (i, picture) in h264.enumerated() {
            units.append(.video(picture))
            if i >= 5 {
                var other = AccessUnit(jpeg: Array(jpeg), timestamp: picture.timestamp, ssrc: 9)
                other.track = 1
                units.append(.video(other))
            }
        }
        let tracks: [(track: Int, format: MediaFormat)] =
            Self.video + [(1, .video(VideoFormat(codec: .jpeg, payloadType: 26)))]
        let (output, writer) = Recordings.record(units, tracks: tracks)
        let times = Recordings.times(output)
        let secondKeyframe = try #require(h264.indices.dropFirst().first { h264[$0].isKeyframe })
        #expect(times[1]?.count == h264.count - secondKeyframe)
        #expect(times[1]?.first?.sync == true)
        #expect(times[2]?.count == h264.count - 5)
        #expect(writer.statistics.unitsBeforeStart == secondKeyframe)
        #expect(output.initializations.count == 1)
    }

    /// Pictures that share a timestamp (a sender's mistake, found by FuzzRecorder): each still gets a decode
    /// tick of its own, and the times a player adds up from the durations never go back, across fragments too.
    @Test func picturesThatShareATimestampStillRiseInDecodeTime() throws {
        let jpeg = try #require(Recordings.units("mjpeg-420-gst.pcap").first?.accessUnit?.jpeg)
        let stamps: [UInt64] = [0, 3000, 6000, 6000, 6000, 9000, 9000, 12000]
        let units = stamps.map { MediaUnit.video(AccessUnit(jpeg: Array(jpeg), timestamp: $0, ssrc: 1)) }
        let (output, _) = Recordings.record(
            units, tracks: [(0, .video(VideoFormat(codec: .jpeg, payloadType: 26)))],
            configuration: .init(maxFragmentBytes: 3 * jpeg.count))
        let samples = try #require(Recordings.times(output)[1])
        #expect(samples.count == stamps.count)
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.decode < $1.decode }, "\(samples.map(\.decode))")
        #expect(output.moofs.count >= 2)
    }

    /// What MP4 does not carry is left out, with the reason, and the rest is recorded.
    @Test func tracksMP4DoesNotCarryAreLeftOutWithTheReason() {
        let writer = FragmentedMP4Writer(formats: [
            .audio(AudioFormat(codec: .g722, payloadType: 9, clockRate: 8000)),
            .audio(AudioFormat(codec: .pcma, payloadType: 8, clockRate: 8000)),
            .audio(AudioFormat(codec: .aac, payloadType: 97, clockRate: 48000)),  // no config
        ])
        #expect(writer.tracksLeftOut.map(\.track) == [0, 2])
        #expect(writer.tracksLeftOut.map(\.problem.code) == [.unsupportedCodec, .invalidConfiguration])
        #expect(writer.tracksLeftOut[0].problem.reason.contains("G722"))
    }
}

/// Configured durations of any size are numbers of ticks, never an overflow (a segment of Int64.max seconds).
@Suite struct HugeDurationTests {
    @Test func hugeConfiguredDurationsRecord() throws {
        let units = try Recordings.units("h264-gst.pcap")
        let configuration = FragmentedMP4Writer.Configuration(
            fragmentDuration: .seconds(Int64.max), segmentDuration: .seconds(Int64.max),
            changeSegmentInterval: .seconds(Int64.max))
        let (output, writer) = Recordings.record(
            units, tracks: FragmentedMP4WriterTests.video, configuration: configuration)
        #expect(output.initializations.count == 1)
        #expect(writer.statistics.videoSamples == units.count)
    }
}
