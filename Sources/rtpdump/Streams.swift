import Audio
import MediaPipeline
import RTSPClient
import ArgumentParser
import FFmpegDecoding
import Foundation
import H26x
import SDP
import SRTP
import PacketCapture
import RTP
import RTPDumpCore
import RTSP
import VideoDecoding

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct Streams: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "streams",
        abstract:
            "One row per RTP stream: SSRC, payload type, addresses, packets, lost, duplicates, reordered, jitter, codec."
    )

    @OptionGroup var options: InputOptions

    @Flag(help: "Print a JSON array instead of a table.")
    var json = false

    @Option(
        name: .customLong("clock-rate"),
        help: "Clock rate in Hz for jitter (default: by payload type; 90000 for dynamic types).")
    var clockRate: Int?

    func validate() throws {
        if let clockRate, !(1000...10_000_000).contains(clockRate) {
            throw ValidationError(
                "--clock-rate must be from 1000 to 10000000 Hz (RTP clocks run at 8000 Hz for G.711, 90000 for video): \(clockRate)"
            )
        }
    }

    func run() throws {
        var (source, session) = try options.openSource()
        // The SDP names each stream's codec and clock; an --sdp with video narrows to its payload type.
        let formats = try naming(options.displayName) { try options.sdpFormats(session: session) }
        let video = options.sdp == nil ? nil : try? options.sdpFormat(session: session)
        // RTP by negotiation (a session) or by the user's word (--port, --sdp) needs no probation.
        var analyzer = StreamAnalyzer(
            filter: options.filter(for: video), clockRate: clockRate,
            probation: session == nil && options.port == nil && options.sdp == nil, formats: formats)
        // The table of what was read is printed however the input ends; its failure comes after it.
        let inputFailure = failure { try source.forEachItem { analyzer.add($0) } }
        let streams = analyzer.streams
        let srtp = source as? SRTPDatagrams
        print(json ? StreamReport.json(streams, srtp: srtp) : StreamReport.table(streams), terminator: "")
        if let srtp, !json, srtp.totalFailures > 0 {
            printError("SRTP: \(srtp.totalFailures) packets failed authentication and were dropped")
        }
        finish(source.warnings)
        for stream in analyzer.unvalidated {
            printError(
                "note: \(stream.key) looks like RTP (\(stream.statistics.packets) packets) but its sequence numbers"
                    + " were never two in a row (RFC 3550 probation): not listed; name its port with --port to count it"
            )
        }
        if let inputFailure { throw naming(options.displayName, inputFailure) }
        if streams.isEmpty {
            printError("no RTP streams found (try --port to narrow the search, or check the capture)")
        }
        try exitIfInterrupted()
    }
}
