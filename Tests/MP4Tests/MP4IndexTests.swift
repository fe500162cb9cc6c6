import Foundation
import MP4
import MediaPipeline
import SDP
import TestSupport
import Testing

/// The index read from MP4 files made by FFmpeg (plain with B-frames, fragmented) and by this library's recorder,
/// against what FFmpeg's own demuxer reads of the same file (ffprobe's packets: position, size, times, keyframe
/// flag), and hostile files refused with a clear error.
@Suite struct MP4IndexTests {
    struct Packet: Equatable, CustomStringConvertible {
        var stream: Int
        var position: UInt64
        var size: UInt32
        var dts: Int64
        var pts: Int64
        var key: Bool
        var description: String { "#\(stream) @\(position) \(size) B dts \(dts) pts \(pts)\(key ? " K" : "")" }
    }

    /// ffprobe's packets of `file`, in file order, with the edit list ignored (`-use_editlist 0`): the times the
    /// file's tables give, which is what the index holds.
    static func probe(_ file: String) async throws -> [Packet] {
        let run = try await runProgram(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-use_editlist", "0", "-show_entries", "packet=stream_index,pos,size,dts,pts,flags",
                "-of", "csv=p=0", file,
            ])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 6, let stream = Int(f[0]), let pts = Int64(f[1]), let dts = Int64(f[2]),
                let size = UInt32(f[3]), let position = UInt64(f[4])
            else { return nil }
            return Packet(stream: stream, position: position, size: size, dts: dts, pts: pts, key: f[5].hasPrefix("K"))
        }
    }

    /// The index's samples as ffprobe lists packets: every track's, by position in the file, the times moved as
    /// FFmpeg's MP4 reader moves them: back by where the track's presentation starts (the edit list's first edit),
    /// and presentation times on by the largest negative composition offset (mov.c's `dts_shift`, which keeps each
    /// picture's presentation at or after its decoding).
    static func packets(_ index: MP4Index) -> [Packet] {
        index.tracks.enumerated().flatMap { stream, track in
            let shift = Int64(max(0, -(track.samples.map(\.compositionOffset).min() ?? 0)))
            return track.samples.map {
                Packet(
                    stream: stream, position: $0.offset, size: $0.size, dts: $0.decodeTime - track.presentationStart,
                    pts: $0.presentationTime - track.presentationStart + shift, key: $0.isSync)
            }
        }.sorted { $0.position < $1.position }
    }

    /// The same packets, or the first that differs.
    static func expectSame(_ ours: [Packet], _ ffprobes: [Packet], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(ours.count == ffprobes.count, sourceLocation: sourceLocation)
        if let i = zip(ours, ffprobes).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            Issue.record("packet \(i): ours \(ours[i]), ffprobe's \(ffprobes[i])", sourceLocation: sourceLocation)
        }
    }

    static func ffmpeg(_ arguments: [String]) async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("index-\(UUID().uuidString).mp4").path
        let run = try await runProgram(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=48000", "-t", "4", "-c:v", "libx264", "-g", "25", "-bf", "2",
                "-c:a", "aac",
            ] + arguments + [file])
        #expect(run.status == 0, "\(run.stderr)")
        return file
    }

    @Test(arguments: [
        ["-movflags", "+faststart"],  // plain, moov first: stts, ctts, stss, stsc, stco
        [],  // plain, moov last
        ["-movflags", "frag_keyframe+empty_moov+default_base_moof"],  // fragmented: trex, tfhd, tfdt, trun
        ["-movflags", "frag_keyframe+empty_moov"],  // fragmented, each traf's base the moof's start or the last end
    ])
    func ffmpegsFilesIndexAsFFmpegReadsThem(flags: [String]) async throws {
        let file = try await Self.ffmpeg(flags)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let reader = try MP4FileReader(path: file)
        let expected = try await Self.probe(file)
        #expect(expected.count > 200)
        Self.expectSame(Self.packets(reader.index), expected)
        let video = try #require(reader.index.tracks.first)
        #expect(video.kind == .video && video.codec == "avc1" && video.width == 320 && video.height == 240)
        #expect(video.samples.contains { $0.compositionOffset != 0 }, "B-frames reorder the pictures")
        #expect(reader.index.tracks.last?.kind == .audio && reader.index.tracks.last?.codec == "mp4a")
        #expect(reader.index.tracks.last?.sampleRate == 48000)
        #expect(!reader.index.isTruncated)
        // The bytes of a sample are where the index says: an H.264 sample is 4-byte length-prefixed NAL units
        // that add up to its size.
        let sample = video.samples[0]
        var bytes = try reader.bytes(of: sample)[...]
        while bytes.count >= 4 {
            let length = bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
            bytes = bytes.dropFirst(4 + length)
        }
        #expect(bytes.isEmpty)
    }

    /// A seek is the keyframe shown at or before the time asked: every 25th picture (1 s) here.
    @Test func aSeekFindsTheKeyframeAtOrBeforeTheTime() async throws {
        let file = try await Self.ffmpeg(["-movflags", "frag_keyframe+empty_moov+default_base_moof"])
        defer { try? FileManager.default.removeItem(atPath: file) }
        let video = try #require(try MP4FileReader(path: file).index.tracks.first)
        let keyframes = video.samples.filter(\.isSync).map(\.presentationTime).sorted()
        #expect(keyframes.count == 4)
        let second = Int64(video.timescale)
        for asked in [0, second / 2, second, 2 * second + 1, 10 * second, -5] {
            let found = try #require(video.keyframe(atOrBefore: asked))
            #expect(video.samples[found].isSync)
            #expect(video.samples[found].presentationTime == (keyframes.last { $0 <= asked } ?? keyframes[0]))
        }
    }

    /// This library's recordings (with B-frames and sender reports from FFmpeg's sender, without from GStreamer's):
    /// FFmpeg reads the same packets, and each picture's wall clock through the file's `prft` boxes is the capture
    /// time the pipeline gave it, within a millisecond.
    @Test(arguments: ["h264-ffmpeg.pcap", "h264-gst.pcap"])
    func aRecordingIndexesAsFFmpegReadsIt(capture: String) async throws {
        let units = try Recordings.units(capture)
        let (output, _) = Recordings.record(units, tracks: FragmentedMP4WriterTests.video)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("rec-\(UUID().uuidString).mp4").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data(output.bytes).write(to: URL(fileURLWithPath: file))
        let index = try MP4FileReader(path: file).index
        Self.expectSame(Self.packets(index), try await Self.probe(file))
        let track = try #require(index.tracks.first)
        #expect(track.samples.count == units.count)
        // Each picture's wall clock, from the prft before its fragment, is the capture time its sender's reports
        // gave it (FFmpeg's sender reports date every picture of this capture).
        guard capture == "h264-ffmpeg.pcap" else { return }
        #expect(!index.wallClockAnchors.isEmpty)
        for (i, unit) in units.enumerated() {
            let expected = try #require(unit.captureTime)
            let time = try #require(index.wallClock(atMediaTime: track.samples[i].presentationTime, track: track.id))
            #expect(abs(time.secondsSince1970 - expected.secondsSince1970) < 0.001, "picture \(i)")
        }
    }

    /// A recording cut mid-fragment (a crash, or still being written) indexes up to its last whole fragment.
    @Test func aFileCutShortIsReadToItsLastWholeFragment() async throws {
        let file = try await Self.ffmpeg(["-movflags", "frag_keyframe+empty_moov+default_base_moof"])
        defer { try? FileManager.default.removeItem(atPath: file) }
        let whole = try MP4FileReader(path: file).index
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        let cut = try MP4Index(bytes: Array(bytes.prefix(bytes.count * 2 / 3)))
        #expect(cut.isTruncated)
        let kept = cut.tracks[0].samples
        #expect(!kept.isEmpty && kept.count < whole.tracks[0].samples.count)
        #expect(kept == Array(whole.tracks[0].samples.prefix(kept.count)))
        #expect(kept.allSatisfy { $0.offset + UInt64($0.size) <= UInt64(bytes.count * 2 / 3) })
    }

    /// Files that lie: each refused with `.invalidFile` and a reason that names the box, never a trap or a read
    /// past the bytes.
    @Test func hostileFilesAreRefusedWithTheBoxNamed() throws {
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let size = UInt32(8 + body.count)
            return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
                + Array(type.utf8) + body
        }
        func expectInvalid(_ bytes: [UInt8], _ words: String, limits: MP4Index.Limits = .init()) {
            #expect {
                _ = try MP4Index(bytes: bytes, limits: limits)
            } throws: { error in
                guard let error = error as? MP4Error else { return false }
                return error.code == .invalidFile && error.reason.contains(words)
            }
        }
        expectInvalid([], "no moov")
        expectInvalid(box("ftyp", Array("isom".utf8) + [0, 0, 0, 0]), "no moov")
        expectInvalid([0, 0, 0, 4] + Array("moov".utf8), "less than its header")
        expectInvalid(box("moov", [0, 0, 0, 9] + Array("trak".utf8)), "moov: a 'trak' box of 9 bytes")
        expectInvalid(box("moof", []), "a moof before any moov")
        expectInvalid(box("moov", box("trak", [])), "moov/trak: has no tkhd")
        expectInvalid(box("moov", [0, 0, 0, 8, 0xFF, 0x01, 0x41, 0x0A]), "moov declares no track")
        let huge = [0, 0, 0, 1] + Array("moov".utf8) + [0, 0, 0, 1, 0, 0, 0, 0]
        expectInvalid(huge, "ends before its moov")  // a moov of 4 GiB in 16 bytes
        // A sample table that claims 2^32-1 sizes in a few bytes.
        let tkhd = box("tkhd", [UInt8](repeating: 0, count: 16))
        let mdhd = box("mdhd", [UInt8](repeating: 0, count: 12) + [0, 0, 0x5F, 0x90, 0, 0, 0, 0])
        let hdlr = box("hdlr", [UInt8](repeating: 0, count: 8) + Array("vide".utf8))
        func track(_ stbl: [UInt8]) -> [UInt8] {
            box("moov", box("trak", tkhd + box("mdia", mdhd + hdlr + box("minf", box("stbl", stbl)))))
        }
        expectInvalid(track(box("stsz", [0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF])), "stsz: says 4294967295")
        expectInvalid(
            track(box("stsz", [0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 5])), "more than the limit of 4",
            limits: .init(maxSamplesPerTrack: 4))
        expectInvalid(track(box("stsz", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 9])), "no chunk offsets")
        // Chunk offsets that cover fewer samples than the sizes say.
        let stsz = box("stsz", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 9, 0, 0, 0, 9])
        let stco = box("stco", [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0])
        let stsc = box("stsc", [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1])
        expectInvalid(track(stsz + stco + stsc), "its chunks hold 1 of its 2 samples")
        let stss = box("stss", [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 7])
        let stsc2 = box("stsc", [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1])
        expectInvalid(track(stsz + stco + stsc2 + stss), "names sample 7 of 2")
        let stts = box("stts", [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0x0E, 0x10])
        expectInvalid(track(stsz + stco + stsc2 + stts), "covers more than its 2 samples")
        // The same tables, made to agree, read.
        let good = track(stsz + stco + stsc2 + box("stts", [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0x0E, 0x10]))
        let index = try MP4Index(bytes: good)
        #expect(index.tracks.first?.samples.map(\.offset) == [0, 9])
        #expect(index.tracks.first?.samples.map(\.decodeTime) == [0, 3600])
        #expect(index.tracks.first?.timescale == 24_464)
        // Track count past the limit.
        expectInvalid(
            box("moov", box("trak", []) + box("trak", [])), "has 2 tracks, more than the limit of 1",
            limits: .init(maxTracks: 1))
    }
}
