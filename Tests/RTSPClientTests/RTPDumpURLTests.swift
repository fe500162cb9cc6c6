import Foundation
import TestSupport
import Testing

/// `rtpdump` on rtsp:// URLs, against the real server: what a user types and sees.
@Suite struct RTPDumpURLTests {
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> ProgramRun {
        try await RTPDumpBinary.run(arguments, environment: environment)
    }

    @Test func aWrongPasswordExitsNonZeroNamingThe401AndNeverShowsThePassword() async throws {
        let server = try await RealServer(["--auth", "digest", "--user", "viewer", "--password", "right-one"])
        defer { server.stop() }
        let inURL = try await Self.run(["streams", "rtsp://viewer:Wr0ngPass@127.0.0.1:\(server.port)/test"])
        #expect(inURL.status != 0)
        #expect(inURL.stderr.contains("401 Unauthorized"))
        #expect(!inURL.all.contains("Wr0ngPass"))
        let asOption = try await Self.run([
            "decode", server.url, "--md5", "--user", "viewer", "--password", "Wr0ngPass",
        ])
        #expect(asOption.status != 0)
        #expect(asOption.stderr.contains("401 Unauthorized"))
        #expect(!asOption.all.contains("Wr0ngPass"))
    }

    @Test func decodesOverUDPWithThePasswordFromTheEnvironment() async throws {
        let server = try await RealServer([
            "--auth", "basic", "--user", "viewer", "--password", "right-one", "--frames", "60",
        ])
        defer { server.stop() }
        let run = try await Self.run(
            ["decode", server.url, "--md5", "--transport", "udp", "--user", "viewer"],
            environment: ["RTPDUMP_PASSWORD": "right-one"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect((58...60).contains(lines.count))
        #expect(lines.allSatisfy { $0.split(separator: " ")[2] == "320x240" })
        #expect(!run.all.contains("right-one"))
    }

    /// The session reads the RTCP itself; its sender reports must still reach `nals` (they once did not).
    @Test func nalsGivesCaptureTimesFromTheSendersReports() async throws {
        let server = try await RealServer(["--frames", "60", "--rtcp-interval", "300"])
        defer { server.stop() }
        let run = try await Self.run(["nals", server.url])
        #expect(run.status == 0, "\(run.stderr)")
        let units = run.stdout.split(separator: "\n").filter { $0.hasPrefix("au ") }.map { line in
            let fields = line.split(separator: " ")
            let rtp = fields.first { $0.hasPrefix("ts=") }.flatMap { UInt32($0.dropFirst(3)) }
            let wallclock = fields.first { $0.hasPrefix("wallclock=") }.flatMap { Double($0.dropFirst(10)) }
            return (rtp: rtp ?? 0, wallclock: wallclock)
        }
        #expect(units.count >= 55)
        // Reports come every 300 ms or so from the start: all but the first few units are stamped, each
        // on the server's clock (this machine's) and about 1/30 s after the one before. Only about: each
        // new report moves the mapping a little (consecutive reports of this server disagreed by up to
        // 73 ms). RealServerTests checks the times exactly, against tshark's reading of the reports.
        let stamped = units.drop { $0.wallclock == nil }
        #expect(stamped.count >= units.count - 15)
        #expect(stamped.allSatisfy { $0.wallclock != nil })
        let now = Date().timeIntervalSince1970
        #expect(stamped.allSatisfy { abs(($0.wallclock ?? 0) - now) < 30 })
        // Each step within half a second of what the RTP clock says: a busy machine moves the live server's
        // reports more than an idle one (255 ms was seen in a full parallel run).
        for (a, b) in zip(stamped, stamped.dropFirst()) {
            let expected = Double(Int32(bitPattern: b.rtp &- a.rtp)) / 90_000
            #expect(abs((b.wallclock ?? 0) - (a.wallclock ?? 0) - expected) < 0.5)
        }
    }

    /// A camera's audio from a URL: `streams` names every track's codec; `extract -o out.aac` picks the AAC
    /// track though G.711 comes first, and FFmpeg reads the file as 2 s of 48 kHz AAC; `decode --audio --md5`
    /// decodes the first audio track, the G.711 (20 ms frames of 160 samples). The server has no video.
    @Test func aCamerasAudioIsListedExtractedAndDecoded() async throws {
        let server = try await RealServer(["--audio", "--no-video", "--frames", "60"])
        defer { server.stop() }
        let streams = try await Self.run(["streams", server.url])
        #expect(streams.status == 0, "\(streams.stderr)")
        let codecs = streams.stdout.split(separator: "\n").dropFirst().compactMap { $0.split(separator: " ").last }
        #expect(Set(codecs) == ["PCMU", "MPEG4-GENERIC"] && codecs.count == 2)  // in the order their first packets came
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("swift-rtp-\(UUID()).aac").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let extract = try await Self.run(["extract", server.url, "-o", output])
        #expect(extract.status == 0, "\(extract.stderr)")
        let probe = try await runProgram(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-count_packets", "-show_entries",
                "stream=codec_name,sample_rate,channels,nb_read_packets",
                "-of", "csv=p=0", output,
            ])
        let fields = probe.stdout.split(whereSeparator: { $0 == "\n" || $0 == "," }).map(String.init)
        #expect(Array(fields.prefix(3)) == ["aac", "48000", "1"], "\(probe.stdout)")
        let frames = fields.count > 3 ? Int(fields[3]) ?? 0 : 0
        #expect((85...94).contains(frames), "\(probe.stdout)")  // 2 s of 1024-sample frames: 93 sent
        let decode = try await Self.run(["decode", "--audio", server.url, "--md5"])
        #expect(decode.status == 0, "\(decode.stderr)")
        let lines = decode.stdout.split(separator: "\n")
        #expect((95...100).contains(lines.count))
        #expect(lines.allSatisfy { $0.split(separator: " ")[2] == "160x1" })
    }

    @Test func aHostNameIsShownAsTheAddressItReached() async throws {
        let server = try await RealServer(["--frames", "30"])
        defer { server.stop() }
        let run = try await Self.run(["streams", "rtsp://localhost:\(server.port)/test", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let rows = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]]
        #expect(rows?.first?["source"] as? String == "127.0.0.1:\(server.port)")  // it was 0.0.0.0 for names
    }

    @Test func durationStopsALongStream() async throws {
        let server = try await RealServer(["--frames", "900"])
        defer { server.stop() }
        let run = try await Self.run(["streams", server.url, "--duration", "1.5", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.duration < .seconds(5))  // the stream lasts 30 s
        let rows = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]]
        let packets = rows?.first?["packets"] as? Int ?? 0
        #expect(packets > 100)
    }

    /// A camera's picture now: the first keyframe of a live session as a JPEG that FFmpeg reads, the session torn
    /// down at once (the stream lasts 30 s).
    @Test func snapshotTakesALiveSessionsFirstKeyframe() async throws {
        let server = try await RealServer(["--frames", "900"])
        defer { server.stop() }
        let jpeg = FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: jpeg) }
        let run = try await Self.run(["snapshot", server.url, "-o", jpeg.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.duration < .seconds(15))
        #expect(run.stderr.contains("of 1 keyframe(s)"), "\(run.stderr)")
        let probe = try await runProgram(
            "/usr/bin/ffprobe",
            ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", jpeg.path])
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "mjpeg,320,240", "\(probe.all)")
    }
}
