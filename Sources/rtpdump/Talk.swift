import ArgumentParser
import Foundation
import Audio
import AudioDecoding
import FFmpegDecoding
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
            "The audio is a WAV file of 16-bit PCM, or µ-law or A-law as the camera takes it. PCM is encoded to "
            + "the camera's codec: G.711 here when the WAV is mono at the backchannel's rate, anything else (AAC, "
            + "Opus, G.722, G.726, another rate or channel count) through FFmpeg, converted to the backchannel's "
            + "rate and channels. It is sent at its own pace, then the session is torn down.")

    @OptionGroup var options: InputOptions

    @Option(name: .customLong("input"), help: "The WAV file to send.")
    var audio: String

    func validate() throws {
        guard options.isURL else { throw ValidationError("talk sends to a camera: INPUT is its rtsp:// URL") }
    }

    func run() throws {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: audio)) else {
            throw RTPDumpError("cannot read \(audio)")
        }
        let file = [UInt8](data)
        let wav: WAVHeader.Contents
        do { wav = try WAVHeader.read(file) } catch { throw RTPDumpError("\(audio): \(error)") }
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
        let limit = options.duration.map { Int($0 * Double(wav.sampleRate)) } ?? Int.max
        let sent: Int
        let isG711 = format.codec == .pcmu || format.codec == .pcma
        let asItIs = wav.sampleRate == format.sampleRate && wav.channels == 1
        if isG711 && asItIs && (wav.encoding == .pcm16 || wav.encoding == WAVHeader.encoding(for: format.codec)) {
            sent = try sendG711(wav, file: file, limit: limit, to: backchannel)
        } else if wav.encoding == .pcm16 {
            sent = try sendEncoded(wav, file: file, limit: limit, to: backchannel)
        } else {
            throw RTPDumpError(
                "\(audio) is \(wav.encoding) at \(wav.sampleRate) Hz, \(wav.channels) channels, and the backchannel takes "
                    + "\(format.encodingName) at \(format.sampleRate) Hz: give 16-bit PCM (ffmpeg -i \(audio) -c:a pcm_s16le OUT.wav "
                    + "converts), which is encoded to it")
        }
        // What was sent is played before the session ends: a TEARDOWN right behind the last packets stops
        // gst-rtsp-server's backchannel pipeline before they are through it.
        CaptureServing.sleep(until: .now() + .milliseconds(500))
        printError(
            "talk: sent \(sent) samples (\(sent * 1000 / max(1, wav.sampleRate)) ms) as \(format.encodingName)/\(format.clockRate) "
                + "on track \(backchannel.track)")
        try exitIfInterrupted()
    }

    /// The WAV's samples `from..<from + count` as 16-bit PCM.
    private func pcm(_ file: [UInt8], from: Int, count: Int) -> [Int16] {
        (0..<count).map { Int16(bitPattern: UInt16(file[from + 2 * $0]) | UInt16(file[from + 2 * $0 + 1]) << 8) }
    }

    /// Sends a mono WAV at the backchannel's rate as G.711: encoded here from PCM, or its own µ-law or A-law
    /// bytes; 20 ms a packet at the audio's pace. Returns the samples sent.
    private func sendG711(_ wav: WAVHeader.Contents, file: [UInt8], limit: Int, to backchannel: RTSPBackchannel) throws
        -> Int
    {
        let format = backchannel.format
        let bytesPerSample = wav.encoding == .pcm16 ? 2 : 1
        let samples = min(wav.data.count / bytesPerSample, limit)
        let chunk = max(1, wav.sampleRate / 50)
        let start = ArrivalTime.now()
        var sent = 0
        while sent < samples {
            try exitIfInterrupted()
            let count = min(chunk, samples - sent)
            let from = wav.data.lowerBound + sent * bytesPerSample
            if wav.encoding == .pcm16 {
                do { try backchannel.send(pcm: pcm(file, from: from, count: count)) } catch {
                    throw RTPDumpError("\(error)")
                }
            } else {
                backchannel.send(
                    AudioFrame(
                        codec: format.codec, timestamp: UInt64(sent), clockRate: format.clockRate, sampleCount: count,
                        bytes: file[from..<from + count], ssrc: 0))
            }
            sent += count
            CaptureServing.sleep(until: start + .nanoseconds(Int64(sent) * 1_000_000_000 / Int64(wav.sampleRate)))
        }
        return sent
    }

    /// Sends 16-bit PCM of any rate and channels encoded by FFmpeg to the backchannel's codec, each coded frame
    /// when its time comes. Returns the samples sent (at the WAV's rate).
    private func sendEncoded(_ wav: WAVHeader.Contents, file: [UInt8], limit: Int, to backchannel: RTSPBackchannel)
        throws -> Int
    {
        let format = backchannel.format
        let encoder: FFmpegAudioEncoder
        do { encoder = try FFmpegAudioEncoder(format: format) } catch {
            throw RTPDumpError("the backchannel takes \(format.encodingName): \(error)")
        }
        let frameBytes = 2 * wav.channels
        let samples = min(wav.data.count / frameBytes, limit)
        let chunk = max(1, wav.sampleRate / 50)
        let start = ArrivalTime.now()
        let send = { (frame: AudioFrame) in
            CaptureServing.sleep(
                until: start + .nanoseconds(Int64(frame.timestamp) * 1_000_000_000 / Int64(format.clockRate)))
            backchannel.send(frame)
        }
        var taken = 0
        do {
            while taken < samples {
                try exitIfInterrupted()
                let count = min(chunk, samples - taken)
                let pcm = PCMFrame(
                    samples: .int16Interleaved(
                        pcm(file, from: wav.data.lowerBound + taken * frameBytes, count: count * wav.channels)),
                    sampleRate: wav.sampleRate, channels: wav.channels, sampleCount: count, timestamp: UInt64(taken),
                    clockRate: wav.sampleRate)
                try encoder.encode(pcm, emit: send)
                taken += count
            }
            try encoder.drain(emit: send)
        } catch let error as AudioEncodingError {
            throw RTPDumpError("encoding \(format.encodingName): \(error)")
        }
        return taken
    }
}
