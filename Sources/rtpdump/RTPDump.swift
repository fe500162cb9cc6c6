import ArgumentParser
import PacketCapture
import RTP
import RTPDumpCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@main
struct RTPDump: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rtpdump",
        abstract: "Inspect RTP streams in capture files (pcap, pcapng).",
        discussion:
            "Machine-readable output goes to stdout, diagnostics to stderr; the exit status is non-zero on failure.",
        subcommands: [Streams.self, Packets.self]
    )
}

/// Options every subcommand shares.
struct InputOptions: ParsableArguments {
    @Argument(help: "A capture file: pcap or pcapng.")
    var input: String

    @Option(help: "Only RTP on this UDP port (source or destination).")
    var port: UInt16?

    @Option(help: "Only this SSRC (decimal or 0x-prefixed hex).", transform: parseSSRC)
    var ssrc: UInt32?

    @Option(name: .customLong("payload-type"), help: "Only this RTP payload type.")
    var payloadType: UInt8?

    var filter: StreamFilter { StreamFilter(port: port, ssrc: ssrc, payloadType: payloadType) }
}

func parseSSRC(_ text: String) throws -> UInt32 {
    let value = text.lowercased().hasPrefix("0x") ? UInt32(text.dropFirst(2), radix: 16) : UInt32(text)
    guard let value else {
        throw ValidationError("--ssrc must be a 32-bit number, decimal or 0x-prefixed hex: \(text)")
    }
    return value
}

/// Writes a diagnostic line to stderr (file descriptor 2).
func printError(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { buffer in _ = write(2, buffer.baseAddress, buffer.count) }
}

/// Reports what the capture reader skipped, then fails if the capture could not be read to its end.
func finish(_ capture: CaptureFile) {
    for line in CaptureInput.warningLines(capture.warnings) { printError(line) }
}

struct Streams: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "One row per RTP stream: SSRC, payload type, addresses, packets, lost, duplicates, reordered, jitter."
    )

    @OptionGroup var options: InputOptions

    @Flag(help: "Print a JSON array instead of a table.")
    var json = false

    @Option(
        name: .customLong("clock-rate"),
        help: "Clock rate in Hz for jitter (default: by payload type; 90000 for dynamic types).")
    var clockRate: Int?

    func run() throws {
        var capture = try CaptureInput.open(options.input)
        let analyzer: StreamAnalyzer
        do {
            analyzer = try StreamAnalyzer.analyze(&capture, filter: options.filter, clockRate: clockRate)
        } catch {
            throw RTPDumpError("\(options.input): \(error)")
        }
        let streams = analyzer.streams
        print(json ? StreamReport.json(streams) : StreamReport.table(streams), terminator: "")
        finish(capture)
        if streams.isEmpty {
            printError("no RTP streams found (try --port to narrow the search, or check the capture)")
        }
    }
}

struct Packets: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "One line per RTP packet.")

    @OptionGroup var options: InputOptions

    @Flag(help: "List packets as a reorder buffer releases them, with LOSS lines for gaps.")
    var ordered = false

    @Option(name: .customLong("reorder-delay-ms"), help: "With --ordered: how long to wait for a missing packet.")
    var reorderDelay: Int = 100

    func run() throws {
        var capture = try CaptureInput.open(options.input)
        let write: (String) -> Void = { print($0) }
        do {
            if ordered {
                let configuration = ReorderBuffer.Configuration(maxDelay: .milliseconds(reorderDelay))
                try PacketListing.releaseOrder(
                    &capture, filter: options.filter, configuration: configuration, write: write)
            } else {
                try PacketListing.arrivalOrder(&capture, filter: options.filter, write: write)
            }
        } catch {
            throw RTPDumpError("\(options.input): \(error)")
        }
        finish(capture)
    }
}
