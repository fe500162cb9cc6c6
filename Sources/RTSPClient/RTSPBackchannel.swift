import Audio
import MediaPipeline
import RTP
@_spi(SansIO) import RTSP
import SDP
import Synchronization

/// The ONVIF audio backchannel of a session: audio the client sends to the camera (a doorbell's or an
/// intercom's speaker). Asked for with ``RTSPSessionOptions/backchannel``; ``RTSPSession/backchannel`` is nil
/// when the camera offered none.
///
/// ```swift
/// var options = RTSPSessionOptions()
/// options.backchannel = true
/// let session = try await RTSPSession.connect(to: url, options: options)
/// try session.backchannel?.send(pcm: samples)   // 16-bit PCM at the format's rate, encoded to G.711 here
/// ```
///
/// Packets go on the track's transport (interleaved, or UDP to the camera's port) with sender reports beside the
/// receiver reports. Call it at the pace of the audio: the camera plays what arrives as it arrives.
public final class RTSPBackchannel: Sendable {
    /// The backchannel's index in ``RTSPSession/tracks``.
    public let track: Int
    /// What the camera takes: G.711 (PCMU, PCMA) is encoded from PCM here; other codecs take coded frames
    /// (``send(_:)``), which FFmpegDecoding's `FFmpegAudioEncoder` makes from PCM for AAC, Opus, G.722 and G.726.
    public let format: AudioFormat
    private let driver: SessionDriver
    /// The samples sent so far: the next PCM's timestamp.
    private let samples = Mutex<UInt64>(0)

    init(track: Int, format: AudioFormat, driver: SessionDriver) throws(RTSPClientError) {
        self.track = track
        self.format = format
        self.driver = driver
        do throws(PacketizerError) {
            _ = try Packetizer(format: .audio(format))
        } catch {
            throw RTSPClientError(
                .unsupported,
                "the camera's backchannel takes \(format.encodingName), which this library does not send: \(error)")
        }
    }

    /// Sends 16-bit mono PCM at the format's sample rate, encoded to the camera's G.711; its timestamps follow
    /// from the samples sent before. Throws `.unsupported` when the camera takes another codec.
    public func send(pcm samples: some Collection<Int16>) throws(RTSPClientError) {
        guard format.codec == .pcmu || format.codec == .pcma else {
            throw RTSPClientError(
                .unsupported,
                "the camera's backchannel takes \(format.encodingName): send coded frames (send(_:)), not PCM (FFmpegAudioEncoder makes them)"
            )
        }
        let codes = G711.encode(samples, codec: format.codec)
        let timestamp = self.samples.withLock { sent in
            defer { sent += UInt64(codes.count) }
            return sent
        }
        send(
            AudioFrame(
                codec: format.codec, timestamp: timestamp, clockRate: format.clockRate, sampleCount: codes.count,
                bytes: codes[...], ssrc: 0))
    }

    /// Sends a coded frame of the backchannel's codec at its timestamp (in ticks of the format's clock): on the
    /// library's sending road (packetized, numbered and stamped, SRTP when the camera gave a key), on the track's
    /// transport.
    public func send(_ frame: AudioFrame) {
        samples.withLock { $0 = max($0, frame.timestamp &+ UInt64(frame.sampleCount)) }
        let (driver, track) = (self.driver, self.track)
        driver.eventLoop.execute { driver.sendBackchannel(.audio(frame), track: track) }
    }
}

extension RTSPBackchannel {
    /// The backchannel of `tracks`, when one is there in a codec this library sends.
    static func find(in tracks: [RTSPTrack], driver: SessionDriver) -> RTSPBackchannel? {
        guard let index = tracks.firstIndex(where: \.isBackchannel), case .audio(let format) = tracks[index].format
        else {
            return nil
        }
        return try? RTSPBackchannel(track: index, format: format, driver: driver)
    }
}
