import FFmpegDecoding
import Foundation
import H26x
import RTP
@_spi(SansIO) import RTSP
import RTSPClient
import TestSupport
import Testing
import VideoDecoding

/// Playing a recording from gst-rtsp-server (`rtsp-server.py --file`: an MP4 file FFmpeg made, 10 s at 30
/// fps, a keyframe each second, served seekable as an NVR serves a recording): PLAY's Range starts at the
/// keyframe at or before the position, a seek while playing goes on from the new position with nothing of
/// the old after it, and an ONVIF replay (`--onvif-replay`: RTSPOnvifMediaFactory, rtponviftimestamp) dates
/// each unit with the time it was recorded. The reference is FFmpeg's decoding of the file itself.
@Suite(.serialized) struct RealServerPlaybackTests {
    /// The recording's file and FFmpeg's frames of it (I420 MD5s, in order).
    static func recording() async throws -> (path: String, frames: [String]) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("recording-\(UUID().uuidString).mp4")
            .path
        let made = try await runProgram(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=rate=30:size=320x240", "-t", "10", "-g", "30", "-bf", "0",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", path,
            ])
        #expect(made.status == 0, "\(made.stderr)")
        let decoded = try await runProgram("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-f", "framemd5", "-"])
        let frames = decoded.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        #expect(frames.count == 300)
        return (path, frames)
    }

    /// `rtpdump decode URL --range npt=5.5-`: the first frame is the file's at 5 s (its keyframe), then the
    /// ones after it, in order.
    @Test(.enabled(if: RTPDumpBinary.present)) func aRangeStartsAtTheKeyframeAtOrBeforeIt() async throws {
        let (path, frames) = try await Self.recording()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await RealServer(["--file", path])
        defer { server.stop() }
        let run = try await RTPDumpBinary.run(["decode", server.url, "--range", "npt=5.5-", "--md5", "--duration", "2"])
        #expect(run.status == 0, "\(run.stderr)")
        let md5s = run.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
        #expect(md5s.count >= 20)
        #expect(md5s == Array(frames[150..<min(300, 150 + md5s.count)]))
    }

    /// `seek` while playing: the units after it are the new position's (the keyframe at 7 s on), the first
    /// flagged as a discontinuity; none of the old position comes after it.
    @Test func aSeekWhilePlayingGoesOnFromTheNewPosition() async throws {
        let (path, frames) = try await Self.recording()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await RealServer(["--file", path])
        defer { server.stop() }
        var options = RTSPSessionOptions()
        options.playback = PlaybackRequest(range: .npt(start: 0, end: nil))
        let session = try await RTSPSession.connect(to: server.url, options: options)
        let decoder = try FFmpegVideoDecoder(codec: .h264)
        var before: [String] = []
        var after: [String] = []
        var flags: [Bool] = []
        var sought = false
        var timeline: PlaybackTimeline?
        var positions: [Double] = []
        for try await unit in try session.accessUnits() {
            if sought { flags.append(unit.isDiscontinuity) }
            if sought, case .npt(let seconds)? = timeline?.position(of: .video(unit)) { positions.append(seconds) }
            try decoder.decode(unit) { frame in
                if sought { after.append(FrameDigest.md5(frame)) } else { before.append(FrameDigest.md5(frame)) }
            }
            if !sought && before.count == 15 {
                try await session.seek(PlaybackRequest(range: .npt(start: 7.2, end: nil)))
                timeline = await session.timeline()
                sought = true
                decoder.flush()  // pictures the decoder held belong to the old position
            }
            if after.count == 30 { break }
        }
        await session.teardown()
        #expect(before == Array(frames[0..<15]))
        #expect(after == Array(frames[210..<240]))
        #expect(flags.first == true && flags.dropFirst().allSatisfy { !$0 })
        #expect(await session.playedRangeHeader()?.hasPrefix("npt=7") == true)
        // Each unit after the seek is where the answer's Range and RTP-Info put it: the answered start, then a
        // picture every 1/30 s (the recording's 30 fps), the 211th picture of the file at 7.000 s.
        guard case .npt(let start, _)? = await session.playedRange() else {
            Issue.record("no npt range answered")
            return
        }
        #expect(positions.count == 30)
        for (index, seconds) in positions.enumerated() {
            let expected: Double = start + Double(index) / 30
            #expect(abs(seconds - expected) < 0.001, "unit \(index) at \(seconds) s")
        }
    }

    /// An ONVIF replay of a recording made at 2026-01-01T00:00:00Z: from 5 s in, each unit's capture time is
    /// the time it was recorded (00:00:05 plus its place in the file), from the 0xABAC extension.
    @Test func anONVIFReplayDatesEachUnitWithItsRecordedTime() async throws {
        let (path, _) = try await Self.recording()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorded: UInt64 = 3_976_214_400  // 2026-01-01T00:00:00Z in NTP seconds
        let server = try await RealServer(["--file", path, "--onvif-replay", "\(recorded)"])
        defer { server.stop() }
        var options = RTSPSessionOptions()
        options.playback = PlaybackRequest(range: .npt(start: 5, end: nil), onvifReplay: true)
        let session = try await RTSPSession.connect(to: server.url, options: options)
        var times: [Double] = []
        for try await unit in try session.accessUnits() {
            times.append(unit.captureTime?.secondsSince1970 ?? 0)
            if times.count == 30 { break }
        }
        await session.teardown()
        let start = 1_767_225_600.0 + 5
        for (index, time) in times.enumerated() {
            #expect(abs(time - (start + Double(index) / 30)) < 0.001, "unit \(index) at \(time)")
        }
    }
}
