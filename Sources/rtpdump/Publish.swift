import ArgumentParser
import RTPDumpCore
import RTSPServer
import SDP
import WebRTCServer

struct Publish: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract:
            "Publish INPUT into a WebRTC service over WHIP (RFC 9725): a capture, an rtsp:// URL or an Annex B file.",
        discussion:
            "The offer is posted to --whip; the video (H.264, H.265) and audio (Opus, G.711, G.722) go as they are, "
            + "without re-encoding (other tracks are left out and said so). A capture plays at its captured pace and "
            + "an Annex B file at --fps, once (or for ever with --loop); a URL as long as the camera sends. At the "
            + "end the session is deleted at the endpoint. Here --port is a filter, as in the other commands.")

    @OptionGroup var options: InputOptions

    @Option(help: "The WHIP endpoint's URL (http://HOST[:PORT]/PATH).")
    var whip: String

    @Option(help: "A bearer token for the endpoint (Authorization: Bearer).")
    var token: String?

    @Flag(help: "Play the capture or file again from its start each time it ends, for ever.")
    var loop = false

    @Option(help: "An Annex B file's picture rate (it carries no timestamps; default 25).")
    var fps: Double = 25

    func validate() throws {
        if loop && options.isURL { throw ValidationError("--loop replays a capture; a relayed URL is live") }
        guard fps > 0 && fps <= 1000 else { throw ValidationError("--fps must be above 0 and at most 1000: \(fps)") }
        guard whip.lowercased().hasPrefix("http://") else {
            throw ValidationError("--whip must be an http:// URL: \(whip.prefix(200))")
        }
    }

    func run() throws {
        let input = ServedInput(options: options, fps: fps, loop: loop, backchannel: false)
        let opened = try input.open { formats in
            do {
                return try MediaSource(formats: formats)
            } catch {
                throw RTPDumpError("cannot publish \(options.displayName): \(error)")
            }
        }
        let publisher = WHIPPublisher(source: opened.source, endpoint: whip, bearerToken: token)
        // Keyed before the input plays: a capture or a file then starts at once, from its first picture.
        try naming("WHIP endpoint \(whip.prefix(200))") { try waitFor { try await publisher.start() } }
        printError("publishing \(opened.description) to \(whip.prefix(200))")
        try opened.play()
        opened.source.finish()
        waitFor { await publisher.stop() }
        try exitIfInterrupted()
    }
}
