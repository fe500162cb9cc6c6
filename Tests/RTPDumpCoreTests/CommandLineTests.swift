import RTP
import Foundation
import TestSupport
import Testing

/// The `rtpdump` executable itself (built beside the tests): what a user types and sees.
@Suite struct CommandLineTests {
    static var present: Bool { RTPDumpBinary.present }

    static func run(_ arguments: [String]) async throws -> ProgramRun { try await RTPDumpBinary.run(arguments) }

    @Test(.enabled(if: present)) func decodeScalesToTheAskedSize() async throws {
        let run = try await Self.run(["decode", Fixtures.capture("h264-ffmpeg.pcap"), "--md5", "--size", "160x120"])
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 75)
        #expect(lines.allSatisfy { $0.split(separator: " ")[2] == "160x120" })
        #expect(run.stderr.contains("75 frames"))
    }

    /// FFmpeg and the hundred libraries it pulls in are loaded by `decode` alone: other commands start
    /// without them (CFFmpegLoader). The dynamic loader's own log says which libraries a run opened.
    @Test(.enabled(if: present)) func onlyDecodingLoadsFFmpeg() async throws {
        #if os(Linux)
            let capture = Fixtures.capture("h264-ffmpeg.pcap")
            let streams = try await RTPDumpBinary.run(["streams", capture], environment: ["LD_DEBUG": "files"])
            #expect(streams.status == 0)
            #expect(streams.stderr.contains("libc.so"))  // the log is there (the Swift runtime is linked in)...
            #expect(!streams.stderr.contains("libavcodec"))  // ...and FFmpeg is not in it
            let decode = try await RTPDumpBinary.run(["decode", capture, "--md5"], environment: ["LD_DEBUG": "files"])
            #expect(decode.status == 0)
            #expect(decode.stderr.contains("libavcodec.so"))
        #endif
    }

    /// G.711 captures without an SDP: static payload types (0 PCMU, 8 PCMA) are their codec, never video.
    /// Sniffed, their bytes once became 40 "H.265" access units (PCMU) and "H.264" ones (PCMA); now nothing
    /// is listed, extract and decode find no video stream, and each says why.
    @Test(.enabled(if: present), arguments: ["audio-pcmu-gst.pcap", "audio-pcma-gst.pcap"])
    func staticPayloadTypesAreNeverVideo(capture: String) async throws {
        let nals = try await Self.run(["nals", Fixtures.capture(capture)])
        #expect(nals.status == 0 && nals.stdout.isEmpty, "\(nals.stdout.prefix(200))")
        #expect(nals.stderr.contains("is static (RFC 3551"), "\(nals.stderr)")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString).h264").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let extract = try await Self.run(["extract", Fixtures.capture(capture), "-o", output])
        #expect(extract.status != 0 && extract.stderr.contains("no H.264, H.265 or JPEG stream"), "\(extract.stderr)")
        #expect(extract.stderr.contains("is static (RFC 3551"))
    }

    /// A URL with a space (unquoted in a script, pasted from a web page) fails before connecting, naming
    /// the URL's fault: it was sent as it was, and failed as "connection reset".
    @Test(.enabled(if: present)) func aURLWithASpaceFailsBeforeConnecting() async throws {
        let run = try await RTPDumpBinary.run(["streams", "rtsp://127.0.0.1:9/a b"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("a space in its path"), "\(run.stderr)")
        #expect(!run.stderr.lowercased().contains("connect"), "\(run.stderr)")
        // Said once: the URL that does not parse is named by its error alone.
        #expect(!run.stderr.contains("the RTSP URL: the RTSP URL"), "\(run.stderr)")
    }

    /// Nothing in rtpdump uses Foundation beyond FoundationEssentials (which ArgumentParser brings), so the
    /// static link leaves out Foundation's internationalization and ICU with its 30 MB of data: a `contains`
    /// with a String argument, `range(of:)` or `NSCondition` in any module would bring them back (each
    /// did), along with a thousand protocol conformance records that the Swift runtime searches at start-up.
    @Test(.enabled(if: present)) func rtpdumpCarriesNoICU() throws {
        #if os(Linux)
            let binary = try Data(contentsOf: URL(fileURLWithPath: RTPDumpBinary.path), options: .alwaysMapped)
            #expect(binary.count > 1_000_000)
            #expect(binary.range(of: Data("swift_".utf8)) != nil)  // the search works on this file...
            #expect(binary.range(of: Data("icudt".utf8)) == nil)  // ...and ICU's data (icudt76l...) is not in it
        #endif
    }

    /// libsrtp2 (and, on Debian, the NSS libraries under it) is loaded by a run with --srtp-key alone
    /// (CSRTPLoader), and that run still unprotects the packets.
    @Test(.enabled(if: present)) func onlySRTPLoadsLibsrtp() async throws {
        #if os(Linux)
            let manifest = try #require(try Fixtures.json("h264-srtp.json") as? [String: Any])
            let hex = try #require(manifest["key"] as? String)
            let key = Data(try #require(bytes(hex: hex))).base64EncodedString()
            let capture = Fixtures.capture("h264-srtp.pcap")
            let plain = try await RTPDumpBinary.run(["streams", capture], environment: ["LD_DEBUG": "files"])
            #expect(plain.status == 0)
            #expect(plain.stderr.contains("libc.so"))
            #expect(!plain.stderr.contains("libsrtp2"))
            let srtp = try await RTPDumpBinary.run(
                ["streams", capture, "--srtp-key", key, "--json"], environment: ["LD_DEBUG": "files"])
            #expect(srtp.status == 0)
            #expect(srtp.stderr.contains("libsrtp2.so"))
            #expect(srtp.stdout.contains("\"packets\": 1485") && srtp.stdout.contains("\"srtpAuthFailures\": 0"))
        #endif
    }

    @Test(.enabled(if: present)) func badInputFailsWithAMessageOnStderr() async throws {
        let garbage = try await Self.run(["streams", Fixtures.capture("garbage.bin")])
        #expect(garbage.status != 0)
        #expect(garbage.stdout.isEmpty)
        #expect(garbage.stderr.contains("not a pcap or pcapng capture"))
        let size = try await Self.run(["decode", Fixtures.capture("h264-ffmpeg.pcap"), "--size", "161x120"])
        #expect(size.status != 0)
        #expect(size.stderr.contains("even numbers"))
        let url = try await Self.run(["streams", "rtsp://user:secret@camera/stream"])
        #expect(url.status != 0)
        #expect(!(url.stdout + url.stderr).contains("secret"))
    }

    /// Values that trapped (inf, nan and 1e300 seconds overflowed a clock), hung (100,000 decoder threads) or
    /// gave nonsense (a 0 Hz clock) are refused before anything runs, with the range they must be in.
    @Test(
        .enabled(if: present),
        arguments: [
            (["streams", "--duration", "inf"], "--duration must be"),
            (["streams", "--duration", "nan"], "--duration must be"),
            (["streams", "--duration", "1e300"], "--duration must be"),
            (["streams", "--duration=-5"], "--duration must be"),
            (["streams", "--duration", "0"], "--duration must be"),
            (["streams", "--clock-rate", "0"], "from 1000 to 10000000 Hz"),
            (["decode", "--threads", "100000"], "--threads must be from 0"), (["decode", "--threads=-1"], "to 64"),
            (["packets", "--ordered", "--reorder-delay-ms=-1"], "from 0 to 60000"),
            (["streams", "--reconnect-max-delay", "0"], "from 0.1 to 3600 seconds"),
            (["streams", "--reconnect-max-delay", "nan"], "from 0.1 to 3600 seconds"),
        ])
    func optionValuesOutOfRangeAreRefusedNamingTheRange(arguments: [String], message: String) async throws {
        let capture = Fixtures.capture("h264-ffmpeg.pcap")
        let run = try await Self.run([arguments[0], capture] + arguments.dropFirst())
        #expect(run.status == 64)  // ArgumentParser's usage error: a message, not a trap
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains(message))
    }

    /// `rtsp:/` (one slash), `rtsp:` or no scheme at all before `user:password@` is not a URL, and not a
    /// file: it is refused as neither, and the password in it is not printed.
    @Test(
        .enabled(if: present),
        arguments: ["rtsp:/admin:hunter2@camera/x", "rtsp:admin:hunter2@camera", "admin:hunter2@camera/x"])
    func aMistypedURLIsRefusedWithoutItsPassword(input: String) async throws {
        let run = try await Self.run(["streams", input])
        #expect(run.status != 0)
        #expect(run.stderr.contains("neither a capture file nor an RTSP URL"))
        #expect(!run.all.contains("hunter2"))
    }

    /// An SDP whose sprop-parameter-sets holds an AUD and garbage, for a stream with good sets in band: two
    /// warnings naming the file, and every frame GStreamer decodes from the same RTP. It was fatal.
    @Test(.enabled(if: present)) func badSDPParameterSetsAreAWarningAndTheInBandSetsDecode() async throws {
        let sdp = FileManager.default.temporaryDirectory.appendingPathComponent("bad-sprop-\(getpid()).sdp").path
        try """
        v=0\r
        o=- 1 1 IN IP4 127.0.0.1\r
        s=bad sprop\r
        t=0 0\r
        m=video 5000 RTP/AVP 96\r
        a=rtpmap:96 H264/90000\r
        a=fmtp:96 packetization-mode=1;sprop-parameter-sets=CRA=,@@garbage@@\r

        """.write(toFile: sdp, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: sdp) }
        let run = try await Self.run(["decode", Fixtures.capture("h264-gst.pcap"), "--sdp", sdp, "--md5"])
        #expect(run.status == 0)
        #expect(run.stderr.contains("warning: \(sdp): sprop-parameter-sets entry 1 holds a AUD NAL unit"))
        #expect(run.stderr.contains("warning: \(sdp): sprop-parameter-sets entry 2 is not valid base64"))
        let expected = try String(
            contentsOf: Fixtures.expected.appendingPathComponent("h264-gst.pcap.gst-frames.md5"), encoding: .utf8
        ).split(separator: "\n")
        #expect(run.stdout.split(separator: "\n").map { $0.split(separator: " ")[3] } == expected)
    }

    /// A capture whose last record has an absurd length: the streams, NAL units, access units and frames
    /// before it are printed as tshark and GStreamer would print them, then the error, and the exit is 1.
    @Test(.enabled(if: present), arguments: ["streams", "packets", "nals", "extract", "decode"])
    func aCaptureDamagedHalfWayGivesWhatCameBeforeThenTheError(command: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("half-\(command)-\(getpid()).pcap")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.capture("h264-gst.pcap")))
        bytes.append(contentsOf: [0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0x7F])
        try bytes.write(to: path)
        let output = path.path + ".h264"
        defer {
            try? FileManager.default.removeItem(at: path)
            try? FileManager.default.removeItem(atPath: output)
        }
        let extra = command == "extract" ? ["-o", output] : command == "decode" ? ["--md5"] : []
        let run = try await Self.run([command, path.path] + extra)
        #expect(run.status == 1)
        #expect(run.stderr.contains("claims 2147483647 captured bytes"))
        let packets = try Fixtures.tsharkPackets("h264-gst.pcap")
        switch command {
        case "streams": #expect(run.stdout.contains(" \(packets) "))
        case "packets": #expect(run.stdout.split(separator: "\n").count == packets)
        case "nals": #expect(run.stdout.split(separator: "\n").filter { $0.hasPrefix("au ") }.count == 90)
        case "extract": #expect(run.stderr.contains("90 access units"))
        default: #expect(run.stdout.split(separator: "\n").count == 90)
        }
    }

    @Test(.enabled(if: present)) func srtpKeyDecodesAndStreamsCountsAuthenticationFailures() async throws {
        let manifest = try #require(try Fixtures.json("h264-srtp.json") as? [String: Any])
        let hex = try #require(manifest["key"] as? String)
        let key = Data(try #require(bytes(hex: hex))).base64EncodedString()
        let decode = try await Self.run(["decode", Fixtures.capture("h264-srtp.pcap"), "--srtp-key", key, "--md5"])
        #expect(decode.status == 0)
        let expected = try String(
            contentsOf: Fixtures.expected.appendingPathComponent("h264-srtp.pcap.gst-frames.md5"), encoding: .utf8)
        let md5s: [String] = decode.stdout.split(separator: "\n").map { String($0.split(separator: " ")[3]) }
        #expect(md5s == expected.split(separator: "\n").map(String.init))

        let streams = try await Self.run([
            "streams", Fixtures.capture("h264-srtp-flipped.pcap"), "--srtp-key", key, "--json",
        ])
        #expect(streams.status == 0)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(streams.stdout.utf8)) as? [[String: Any]])
        let flipped = try #require(manifest["flippedSequenceNumbers"] as? [Int])
        #expect(
            rows.first { $0["ssrc"] as? Int == manifest["ssrc"] as? Int }?["srtpAuthFailures"] as? Int == flipped.count)
        #expect(!(streams.stdout + streams.stderr).contains(key))

        let badKey = try await Self.run(["streams", Fixtures.capture("h264-srtp.pcap"), "--srtp-key", "c2hvcnQ="])
        #expect(badKey.status != 0)
        #expect(badKey.stderr.contains("30 bytes"))
    }

    @Test(.enabled(if: present)) func streamsJSONGoesToStdoutAndWarningsToStderr() async throws {
        let run = try await Self.run(["streams", Fixtures.capture("h264-gst-truncated.pcap"), "--json"])
        #expect(run.status == 0)
        let rows = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]]
        #expect(rows?.count == 1)
        #expect(run.stderr.contains("cut short"))
    }
}

extension CommandLineTests {
    @Test(.enabled(if: present)) func decodeReadsAnRTSPSessionCaptureWithNoFlags() async throws {
        let run = try await Self.run(["decode", Fixtures.capture("rtsp-h264-tcp.pcap"), "--md5"])
        #expect(run.status == 0)
        let md5s = run.stdout.split(separator: "\n").map { String($0.split(separator: " ")[3]) }
        #expect(md5s == (try FrameDecodingTests.expected("rtsp-h264-tcp.pcap")))
    }
}

extension CommandLineTests {
    /// `extract` writes GStreamer's NAL units (parameter sets and delimiters aside) to the named file, and a
    /// file it cannot create or write is an error that names it.
    @Test(.enabled(if: present)) func extractWritesGStreamersNALUnitsAndFailsClearlyOnABadOutput() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("extract-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.h264").path
        let run = try await Self.run(["extract", Fixtures.capture("h264-gst.pcap"), "-o", output])
        #expect(run.status == 0)
        let written = AnnexBFile.nalUnits([UInt8](try Data(contentsOf: URL(fileURLWithPath: output))))
        let expected = try AnnexBFile.nalUnits(expected: "h264-gst.pcap.gst.h264")
        let media = { (nals: [[UInt8]]) in nals.filter { !AnnexBFile.isParameterSetOrDelimiter($0, .h264) } }
        #expect(media(written).count > 100)
        #expect(media(written) == media(expected))

        let missing = try await Self.run([
            "extract", Fixtures.capture("h264-gst.pcap"), "-o", directory.path + "/no/out.h264",
        ])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("cannot create \(directory.path)/no/out.h264"))
        #if os(Linux)
            let full = try await Self.run(["extract", Fixtures.capture("h264-gst.pcap"), "-o", "/dev/full"])
            #expect(full.status != 0)
            #expect(full.stderr.contains("cannot write /dev/full"))
        #endif
    }

    /// `frames` lists the audio frames of a capture as its SDP describes them: GStreamer's depayloader's
    /// frames, size for size; without an SDP that describes audio, it says what to give.
    @Test(.enabled(if: present), arguments: ["audio-aac-gst", "audio-latm-gst", "audio-opus-ffmpeg", "audio-pcma-gst"])
    func framesListsTheAudioFramesAsGStreamerDepayloadsThem(capture: String) async throws {
        let run = try await Self.run(
            ["frames", Fixtures.capture(capture + ".pcap"), "--sdp", Fixtures.capture(capture + ".sdp")])
        #expect(run.status == 0, "\(run.stderr)")
        let sizes = run.stdout.split(separator: "\n").compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("bytes=") }.map { String($0.dropFirst(6)) }
        }
        let expected = try String(
            contentsOf: Fixtures.expected.appendingPathComponent(capture + ".pcap.gst-frames.txt"), encoding: .utf8
        ).split(separator: "\n").map { String($0.split(separator: " ")[0]) }
        #expect(sizes == expected)
        let none = try await Self.run(["frames", Fixtures.capture("h264-gst.pcap")])
        #expect(none.status != 0)
        #expect(none.stderr.contains("describes no audio"))
    }
}
