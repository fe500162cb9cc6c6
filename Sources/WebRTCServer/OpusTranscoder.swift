import Audio
import AudioDecoding
import FFmpegDecoding
import MediaPipeline
import NIOConcurrencyHelpers
import RTP
import RTSPServer
import SDP

/// A source's audio re-encoded to Opus for browsers (which play Opus and G.711, and cameras send AAC): each unit
/// of the track decoded (libavcodec), encoded to Opus at 48 kHz (libopus through libavcodec) and pushed into a
/// source of its own that WebRTC viewers' audio subscribes to. Made for a mount when its first viewer needs it,
/// and fed from then on on the pushing thread; each Opus frame is dated from the unit it came from, so the sender
/// reports of both sources share the camera's clock and the browser keeps audio and video in time.
final class OpusTranscoder: @unchecked Sendable {  // its codecs used only under its lock
    /// The format it sends: Opus, 48 kHz, two channels (RFC 7587's only rtpmap).
    static let format = AudioFormat(codec: .opus, payloadType: 111, clockRate: 48000, channels: 2)
    /// The Opus source viewers subscribe to (track 0).
    let source: MediaSource
    let track: Int
    private let state: NIOLockedValueBox<State>

    struct State {
        let decoder: FFmpegAudioDecoder
        let encoder: FFmpegAudioEncoder
        /// The wall-clock time of the first sample encoded: each Opus frame is dated from it.
        var origin: WallClockTime?
        var failures = 0
    }

    /// A transcoder of `track` of `main` (its format one of ``WebRTC/WebRTCAnswer/transcodedToOpus``).
    init(of main: MediaSource, track: Int) throws {
        guard case .audio(let format) = main.formats[track] else {
            throw WHEPRefusal(status: .notAcceptable, reason: "not audio")
        }
        source = try MediaSource(formats: [.audio(Self.format)])
        self.track = track
        state = NIOLockedValueBox(
            State(decoder: try FFmpegAudioDecoder(format: format), encoder: try FFmpegAudioEncoder(format: Self.format))
        )
        let transcoder = self
        main.observe { unit, index, time in
            guard index == track, case .audio(let frame) = unit else { return }
            transcoder.take(frame, at: time)
        }
    }

    private func take(_ frame: AudioFrame, at time: WallClockTime) {
        var encoded: [AudioFrame] = []
        let origin = state.withLockedValue { state -> WallClockTime in
            let origin = state.origin ?? time
            state.origin = origin
            do {
                try state.decoder.decode(frame) { pcm in
                    try? state.encoder.encode(pcm) { encoded.append($0) }
                }
            } catch {
                state.failures += 1  // a frame the decoder refused: the next goes on
            }
            return origin
        }
        for opus in encoded {
            source.push(.audio(opus), track: 0, capturedAt: origin.adding(seconds: Double(opus.timestamp) / 48000))
        }
    }
}
