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

struct Packets: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "packets", abstract: "One line per RTP packet.")

    @OptionGroup var options: InputOptions

    @Flag(help: "List packets as a reorder buffer releases them, with LOSS lines for gaps.")
    var ordered = false

    @Option(name: .customLong("reorder-delay-ms"), help: "With --ordered: how long to wait for a missing packet.")
    var reorderDelay: Int = 100

    func validate() throws {
        guard (0...60_000).contains(reorderDelay) else {
            throw ValidationError("--reorder-delay-ms must be from 0 to 60000 (a minute): \(reorderDelay)")
        }
    }

    func run() throws {
        var (capture, _) = try options.openSource()
        let write: (String) -> Void = { print($0) }
        let inputFailure = failure {
            if ordered {
                let configuration = ReorderBuffer.Configuration(maxDelay: .milliseconds(reorderDelay))
                try PacketListing.releaseOrder(
                    &capture, filter: options.filter, configuration: configuration, write: write)
            } else {
                try PacketListing.arrivalOrder(&capture, filter: options.filter, write: write)
            }
        }
        finish(capture.warnings)
        if let inputFailure { throw naming(options.displayName, inputFailure) }
        try exitIfInterrupted()
    }
}
