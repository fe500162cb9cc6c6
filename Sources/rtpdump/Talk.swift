import ArgumentParser
import Foundation
import Audio
import RTP
import RTPDumpCore
import RTSP
import RTSPClient
import SDP

struct Talk: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "talk",
        abstract: "Send audio to a camera's ONVIF backchannel (a doorbell's or an intercom's speaker).",
        discussion:
            "The audio is a WAV file: 16-bit PCM (encoded here to the camera's G.711), or µ-law or A-law as the "
            + "camera takes it, mono, at the backchannel's rate (8000 Hz for G.711; ffmpeg -i IN -ar 8000 -ac 1 "
            + "-c:a pcm_s16le OUT.wav converts). It is sent at its own pace, 20 ms a packet, then the session is "
            + "torn down.")

    @OptionGroup var options: InputOptions

    @Option(name: .customLong("input"), help: "The WAV file to send.")
    var audio: String

    func validate() throws {
        guard options.isURL else { throw ValidationError("talk sends to a camera: INPUT is its rtsp:// URL") }
    }

    func run() throws {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: audio)) else { throw RTPDumpError("cannot read \(audio)") }
        let file = [UInt8](data)
        let wav: WAVHeader.Contents
        do { wav = try WAVHeader.read(file) } catch { throw RTPDumpError("\(audio): \(error)") }
        guard wav.channels == 1 else {
            throw RTPDumpError("\(audio) has \(wav.channels) channels: the backchannel takes mono (ffmpeg -ac 1 converts)")
        }
        var sessionOptions = options.sessionOptions
        sessionOptions.backchannel = true
        sessionOptions.mediaKinds = []
        let url = options.input
        let session = try naming(options.displayName) {
            try waitFor { [sessionOptions] in try await RTSPSession.connect(to: url, options: sessionOptions) }
        }
        defer { waitFor { await session.teardown() } }
        guard let backchannel = session.backchannel else {
            throw RTPDumpError("\(options.displayName) set up no backchannel this library sends on")
        }
        let format = backchannel.format
        guard wav.sampleRate == format.sampleRate else {
            throw RTPDumpError(
                "\(audio) is at \(wav.sampleRate) Hz; the backchannel (\(format.encodingName)) takes \(format.sampleRate) Hz "
                    + "(ffmpeg -i \(audio) -ar \(format.sampleRate) -ac 1 -c:a pcm_s16le OUT.wav converts)")
        }
        let coded = WAVHeader.encoding(for: format.codec)
        guard wav.encoding == .pcm16 || wav.encoding == coded else {
            throw RTPDumpError("\(audio) is \(wav.encoding) and the backchannel takes \(format.encodingName)")
        }
        let limit = options.duration.map { Int($0 * Double(wav.sampleRate)) } ?? Int.max
        let bytesPerSample = wav.encoding == .pcm16 ? 2 : 1
        let samples = min(wav.data.count / bytesPerSample, limit)
        let chunk = wav.sampleRate / 50
        let start = ArrivalTime.now()
        var sent = 0
        while sent < samples {
            let count = min(chunk, samples - sent)
            let from = wav.data.lowerBound + sent * bytesPerSample
            if wav.encoding == .pcm16 {
                let pcm = (0..<count).map { Int16(bitPattern: UInt16(file[from + 2 * $0]) | UInt16(file[from + 2 * $0 + 1]) << 8) }
                do { try backchannel.send(pcm: pcm) } catch { throw RTPDumpError("\(error)") }
            } else {
                backchannel.send(
                    AudioFrame(
                        codec: format.codec, timestamp: UInt64(sent), clockRate: format.clockRate, sampleCount: count,
                        bytes: file[from..<from + count], ssrc: 0))
            }
            sent += count
            CaptureServing.sleep(until: start + .nanoseconds(Int64(sent) * 1_000_000_000 / Int64(wav.sampleRate)))
        }
        // What was sent is played before the session ends: a TEARDOWN right behind the last packets stops
        // gst-rtsp-server's backchannel pipeline before they are through it.
        CaptureServing.sleep(until: .now() + .milliseconds(500))
        printError(
            "talk: sent \(sent) samples (\(sent * 1000 / max(1, wav.sampleRate)) ms) as \(format.encodingName)/\(format.clockRate) "
                + "on track \(backchannel.track)")
        try exitIfInterrupted()
    }
}
